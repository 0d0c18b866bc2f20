// Imports the module `kstreams describe` is given. The published bin runs on plain Node, which (20,
// and 22 before type stripping) cannot import a .ts file: then tsx is registered when the project
// that installed @kstreams/cli has it (no dependency of ours), and otherwise the error says what to
// install.
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx']);

export async function importUserModule(file: string): Promise<Record<string, unknown>> {
  const path = resolve(file);
  try {
    return await import(pathToFileURL(path).href);
  } catch (error) {
    if (!needsTypeScriptLoader(path, error)) throw error;
    const tsx = await import('tsx/esm/api').catch(() => undefined);
    if (!tsx) throw new Error(typeScriptHint(file));
    tsx.register();
    // Node keeps the failed import of this URL: a query makes it a module of its own.
    return await import(`${pathToFileURL(path).href}?tsx`);
  }
}

/** True when the import failed only because Node does not load TypeScript by itself. */
export function needsTypeScriptLoader(path: string, error: unknown): boolean {
  return (
    TYPESCRIPT.has(extname(path)) && (error as NodeJS.ErrnoException)?.code === 'ERR_UNKNOWN_FILE_EXTENSION'
  );
}

export function typeScriptHint(file: string): string {
  return (
    `${file} is TypeScript, which Node ${process.version} does not load by itself: install tsx in ` +
    'your project (npm install --save-dev tsx) and run kstreams again, or describe the compiled .js file'
  );
}
