// The expected final value per key, from a file (JSON object, or one `key<sep>value` a line with
// a tab, comma, space or `=` between them) or from another topic's last value per key.
import { existsSync, readFileSync } from 'node:fs';
import type { Value } from './values.ts';

const DECIMAL = /^-?\d+$/;
const parse = (s: string): Value => (DECIMAL.test(s.trim()) ? Number(s.trim()) : s);

export function parseExpected(text: string, source = 'expected values'): Map<string, Value> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let obj: unknown;
    try {
      obj = JSON.parse(trimmed);
    } catch (e) {
      throw new Error(`${source}: not valid JSON (${(e as Error).message})`);
    }
    return new Map(
      Object.entries(obj as Record<string, unknown>).map(([k, v]) => {
        if (typeof v !== 'number' && typeof v !== 'string')
          throw new Error(
            `${source}: the value of "${k}" must be a number or a string, not ${JSON.stringify(v)}`,
          );
        return [k, typeof v === 'string' ? parse(v) : v];
      }),
    );
  }
  const out = new Map<string, Value>();
  trimmed.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '' || line.startsWith('#')) return;
    const m = /^(.*?)[\t,= ](.*)$/.exec(line);
    if (!m)
      throw new Error(
        `${source}, line ${i + 1}: expected "key<TAB>value" (or , = space between), got ${JSON.stringify(line)}`,
      );
    out.set(m[1]!, parse(m[2]!));
  });
  return out;
}

/** `--against` names a file if one exists at that path, else a topic. */
export function isFile(against: string): boolean {
  return existsSync(against);
}

export function readExpectedFile(path: string): Map<string, Value> {
  return parseExpected(readFileSync(path, 'utf8'), path);
}
