// Imports the module `kstreams describe` is given. The published bin runs on plain Node, which (20,
// and 22 before type stripping) cannot import a .ts file: then tsx is registered from the user's own
// project when it has it, and otherwise the error says what to install.
import { createRequire } from 'node:module';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx']);

export async function importUserModule(file: string): Promise<Record<string, unknown>> {
  const path = resolve(file);
  try {
    return await import(pathToFileURL(path).href);
  } catch (error) {
    if (!needsTypeScriptLoader(path, error)) throw error;
    const tsx = tsxFrom(path);
    if (!tsx) throw new Error(typeScriptHint(file));
    const { register } = (await import(pathToFileURL(tsx).href)) as { register: () => unknown };
    register();
    return await import(pathToFileURL(path).href);
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

function tsxFrom(path: string): string | undefined {
  try {
    return createRequire(path).resolve('tsx/esm/api');
  } catch {
    return undefined;
  }
}
