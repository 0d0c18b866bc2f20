// The configuration reference is generated from the table the validation reads; this checks that
// the committed file is what the table gives today, and that it lists exactly the keys that
// StreamsConfig declares and resolveStreamsConfig accepts.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { resolveStreamsConfig, type StreamsConfig } from '../../packages/core/src/config/streams-config.ts';
import { REFERENCE_PATH, renderConfigReference } from './config-reference.ts';

const base = { applicationId: 'app', brokers: ['127.0.0.1:9092'], logger: 'silent' } as const;
const documented = () =>
  [...readFileSync(REFERENCE_PATH, 'utf8').matchAll(/^\| `([^`]+)` +\|/gm)].map((m) => m[1] as string);

/** The keys the StreamsConfig type declares, nested ones as `parent.key`, read by the compiler. */
function declaredKeys(): string[] {
  const file = join(
    dirname(fileURLToPath(import.meta.url)),
    '../../packages/core/src/config/config-types.ts',
  );
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    noEmit: true,
    strict: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const symbol = checker.getSymbolAtLocation(source)!;
  const config = checker.getExportsOfModule(symbol).find((s) => s.name === 'StreamsConfig')!;
  const type = checker.getDeclaredTypeOfSymbol(config);
  return type.getProperties().flatMap((property) => {
    const propertyType = checker.getNonNullableType(checker.getTypeOfSymbol(property));
    // Nested keys of plain settings objects (not of serdes, loggers or functions).
    const nested = ['producer', 'consumer', 'metrics', 'errors'].includes(property.name)
      ? propertyType.getProperties().map((p) => `${property.name}.${p.name}`)
      : [];
    return [property.name, ...nested];
  });
}

/** A problem resolveStreamsConfig reports for `config`, if any, as its message. */
function problemsOf(config: unknown): string {
  try {
    resolveStreamsConfig(config as StreamsConfig);
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` writes from the config table today', () => {
    expect(readFileSync(REFERENCE_PATH, 'utf8')).toBe(renderConfigReference());
  });

  it('lists every key that StreamsConfig declares, and no other', () => {
    const declared = declaredKeys();
    expect(declared).toContain('maxTaskIdleMs');
    expect(declared).toContain('producer.acks');
    expect(declared).toContain('errors.deadLetterQueueTopic');
    expect(documented().sort()).toEqual(declared.sort());
  });

  it('lists exactly the keys the validation accepts', () => {
    for (const key of documented()) {
      const [parent, child] = key.split('.') as [string, string | undefined];
      const config =
        child === undefined
          ? { ...base, [parent]: undefined }
          : { ...base, [parent]: { [child]: undefined } };
      expect(problemsOf(config), key).not.toContain('unknown key');
    }
    // The check is not vacuous: a key the reference does not list is refused, nested ones too.
    expect(problemsOf({ ...base, commitInterval: undefined })).toContain('unknown key "commitInterval"');
    expect(problemsOf({ ...base, producer: { linger: undefined } })).toContain(
      'unknown key "producer.linger"',
    );
  });
});
