// The status page's files. In the workspace they are read from src/page/ and mermaid's browser build
// from node_modules (mermaid is a devDependency). The build (packages/http/build/assets.ts) replaces
// this module's dist/page-assets.js with one that holds the files' text itself, mermaid in a module
// of its own loaded on the first request: so the page works from dist/ and from an app bundled with
// esbuild, with no file to find at run time and no mermaid (which wants Node >= 22) to install.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const PAGE_ASSETS = [
  'index.html',
  'status-page.js',
  'broker-line.js',
  'status-page.css',
  'mermaid.min.js',
] as const;
export type PageAsset = (typeof PAGE_ASSETS)[number];

function pageAssetPath(name: PageAsset): string {
  if (name === 'mermaid.min.js') return createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js');
  return fileURLToPath(new URL(`./page/${name}`, import.meta.url));
}

/** An asset's text; the build reads the assets through this function too. */
export async function readPageAsset(name: PageAsset): Promise<string> {
  return readFileSync(pageAssetPath(name), 'utf8');
}
