// When `kstreams describe` asks for tsx: only for a TypeScript file Node refused by its extension.
import { describe, expect, it } from 'vitest';
import { needsTypeScriptLoader, typeScriptHint } from '../src/ops/load-module.ts';

const unknownExtension = Object.assign(new TypeError('Unknown file extension ".ts"'), {
  code: 'ERR_UNKNOWN_FILE_EXTENSION',
});

describe('loading a topology module', () => {
  it('asks for a TypeScript loader for .ts, .mts and .cts files Node refused by their extension', () => {
    for (const f of ['/app/topology.ts', '/app/t.mts', '/app/t.cts']) {
      expect(needsTypeScriptLoader(f, unknownExtension)).toBe(true);
    }
  });

  it('passes any other failure on: a JavaScript file, or a TypeScript file that failed otherwise', () => {
    expect(needsTypeScriptLoader('/app/topology.js', unknownExtension)).toBe(false);
    expect(needsTypeScriptLoader('/app/topology.ts', new SyntaxError('Unexpected token'))).toBe(false);
    expect(needsTypeScriptLoader('/app/topology.ts', undefined)).toBe(false);
  });

  it('says what to install', () => {
    expect(typeScriptHint('topology.ts')).toMatch(/^topology\.ts is TypeScript.*npm install --save-dev tsx/);
  });
});
