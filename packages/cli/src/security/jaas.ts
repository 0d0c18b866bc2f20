// `sasl.jaas.config`, as Kafka's clients write it:
//   org.apache.kafka.common.security.scram.ScramLoginModule required username="app" password="…";
// Only the login modules whose options kafkajs can use are accepted; errors never show a value.

import { SecurityOptionsError } from './options-error.ts';

export interface JaasLogin {
  /** The login module's class name without its package: ScramLoginModule, PlainLoginModule. */
  module: string;
  options: Map<string, string>;
}

const MODULES = ['ScramLoginModule', 'PlainLoginModule'];

export function parseJaas(text: string, where: string): JaasLogin {
  const tokens = tokenize(text, where);
  const [cls, flag, ...rest] = tokens;
  if (cls === undefined || flag === undefined)
    throw new SecurityOptionsError(`${where}: expected "<LoginModule class> required key=\\"value\\" …;"`);
  const module = cls.split('.').at(-1) ?? cls;
  if (!MODULES.includes(module))
    throw new SecurityOptionsError(
      `${where}: login module ${cls} is not supported; use org.apache.kafka.common.security.scram.ScramLoginModule ` +
        '(SCRAM-SHA-256/512) or org.apache.kafka.common.security.plain.PlainLoginModule (PLAIN)',
    );
  if (!['required', 'requisite', 'sufficient', 'optional'].includes(flag.toLowerCase()))
    throw new SecurityOptionsError(
      `${where}: after ${module} comes a control flag ("required"), then the options`,
    );
  const options = new Map<string, string>();
  let i = 0;
  while (i < rest.length) {
    const key = rest[i];
    if (key === ';') {
      if (i !== rest.length - 1)
        throw new SecurityOptionsError(`${where}: only one login module may be given (text after ";")`);
      return { module, options };
    }
    if (rest[i + 1] !== '=' || rest[i + 2] === undefined || rest[i + 2] === ';')
      throw new SecurityOptionsError(`${where}: option ${key} must be written ${key}="value"`);
    options.set(key as string, rest[i + 2] as string);
    i += 3;
  }
  throw new SecurityOptionsError(`${where}: the login module's options must end with ";"`);
}

/** Words, `=`, `;` and double-quoted strings (with backslash escapes), as Java's JaasConfig. */
function tokenize(text: string, where: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) i++;
    else if (c === '=' || c === ';') {
      out.push(c);
      i++;
    } else if (c === '"') {
      let value = '';
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\') i++;
        value += text[i] ?? '';
        i++;
      }
      if (i >= text.length) throw new SecurityOptionsError(`${where}: a quoted value has no closing "`);
      out.push(value);
      i++;
    } else {
      let word = '';
      while (i < text.length && !/[\s=;"]/.test(text[i] as string)) word += text[i++];
      out.push(word);
    }
  }
  return out;
}
