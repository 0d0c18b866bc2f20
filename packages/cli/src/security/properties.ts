// Java's .properties format, as Kafka's tools read `--command-config` files: `key=value`,
// `key: value` or `key value`, `#`/`!` comments, a trailing backslash continues the line, and
// backslash escapes. Errors name the line, never its value: a line may hold a password.

import { SecurityOptionsError } from './options-error.ts';

export function parseProperties(text: string, source: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split(/\r?\n|\r/);
  for (let i = 0; i < lines.length; i++) {
    const first = i + 1;
    let line = (lines[i] ?? '').replace(/^[ \t\f]+/, '');
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    while (endsWithContinuation(line)) {
      i++;
      if (i >= lines.length)
        throw new SecurityOptionsError(
          `${source}, line ${first}: the last line ends with a backslash (a continuation with no next line)`,
        );
      line = line.slice(0, -1) + (lines[i] ?? '').replace(/^[ \t\f]+/, '');
    }
    const [rawKey, rawValue] = splitKeyValue(line);
    out.set(unescapeJava(rawKey, source, first), unescapeJava(rawValue, source, first));
  }
  return out;
}

/** An odd number of backslashes at the end: the last one is not itself escaped. */
function endsWithContinuation(line: string): boolean {
  let n = 0;
  for (let j = line.length - 1; j >= 0 && line[j] === '\\'; j--) n++;
  return n % 2 === 1;
}

/** The key ends at the first unescaped `=`, `:` or whitespace; the separator's spaces are dropped. */
function splitKeyValue(line: string): [string, string] {
  let j = 0;
  while (j < line.length) {
    const c = line[j];
    if (c === '\\') j += 2;
    else if (c === '=' || c === ':' || c === ' ' || c === '\t' || c === '\f') break;
    else j++;
  }
  const key = line.slice(0, j);
  let rest = line.slice(j).replace(/^[ \t\f]+/, '');
  if (rest.startsWith('=') || rest.startsWith(':')) rest = rest.slice(1).replace(/^[ \t\f]+/, '');
  return [key, rest];
}

function unescapeJava(s: string, source: string, line: number): string {
  return s.replace(/\\(u([0-9a-fA-F]{0,4})|.)/g, (_, esc: string, hex: string | undefined) => {
    if (hex !== undefined) {
      if (hex.length !== 4)
        throw new SecurityOptionsError(`${source}, line ${line}: a \\u escape needs four hex digits`);
      return String.fromCharCode(Number.parseInt(hex, 16));
    }
    return { t: '\t', n: '\n', r: '\r', f: '\f' }[esc] ?? esc;
  });
}
