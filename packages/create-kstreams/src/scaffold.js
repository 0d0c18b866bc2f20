// Writes a new project: the files under templates/ copied into the target directory, with their
// {{placeholders}} replaced.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TEMPLATES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'templates');

/** What may already be in a target directory: a fresh `git init` leaves .git behind. */
const ALLOWED_IN_TARGET = new Set(['.git']);

/** A problem the user fixes by changing what they asked for (printed without a stack). */
export class CreateError extends Error {
  /** @override */
  name = 'CreateError';
}

/**
 * @typedef {object} ScaffoldOptions
 * @property {string} targetDir where the project goes; missing or empty (a .git is allowed)
 * @property {string} name the npm package name (validated by the caller)
 * @property {string} applicationId the default applicationId in src/config.ts and the compose file
 * @property {string} kstreamsSpec the dependency spec of the core package, e.g. "^0.1.0"
 * @property {Record<string, string>} [overrides] npm overrides for the kstreams packages that the
 *   core depends on (the state store as a tarball, say, to try unpublished builds)
 * @property {string} [templatesDir] default: the package's templates/
 */

/**
 * Refuses a target that holds anything, so that nothing of the user's is overwritten.
 * @param {string} targetDir
 */
export function checkTarget(targetDir) {
  if (!existsSync(targetDir)) return;
  if (!statSync(targetDir).isDirectory()) {
    throw new CreateError(`${targetDir} exists and is not a directory; choose another project directory.`);
  }
  const present = readdirSync(targetDir).filter((entry) => !ALLOWED_IN_TARGET.has(entry));
  if (present.length > 0) {
    const shown = present.slice(0, 5).join(', ') + (present.length > 5 ? ', ...' : '');
    throw new CreateError(
      `${targetDir} is not empty (it holds ${shown}); choose a new directory, or empty this one, so that nothing in it is overwritten.`,
    );
  }
}

/**
 * A template file's name in the project: a leading "_" becomes "." (npm leaves .gitignore out of
 * a package, so the templates hold _gitignore).
 * @param {string} name
 */
export function projectFileName(name) {
  return name.startsWith('_') ? `.${name.slice(1)}` : name;
}

/**
 * Replaces each {{key}} in `text`; a placeholder without a value is an error, so that a template
 * typo cannot reach a user's project.
 * @param {string} text
 * @param {Record<string, string>} values
 * @param {string} file for the error message
 */
export function fillPlaceholders(text, values, file) {
  return text.replace(/\{\{(\w+)\}\}/g, (_match, key) => {
    const value = values[key];
    if (value === undefined) throw new Error(`template ${file} uses {{${key}}}, which has no value`);
    return value;
  });
}

/**
 * @param {string} dir
 * @returns {string[]} the files under dir, relative to it, sorted
 */
function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * Writes the project; returns the files written, relative to the target directory.
 * @param {ScaffoldOptions} options
 * @returns {string[]}
 */
export function scaffold(options) {
  const { targetDir, templatesDir = TEMPLATES_DIR } = options;
  checkTarget(targetDir);
  const values = {
    name: options.name,
    applicationId: options.applicationId,
    kstreamsSpec: options.kstreamsSpec,
  };
  const written = [];
  for (const file of filesUnder(templatesDir)) {
    const target = join(dirname(file), projectFileName(basename(file)));
    let text = fillPlaceholders(readFileSync(join(templatesDir, file), 'utf8'), values, file);
    if (target === 'package.json' && options.overrides && Object.keys(options.overrides).length > 0) {
      const pkg = JSON.parse(text);
      pkg.overrides = { ...options.overrides };
      text = `${JSON.stringify(pkg, null, 2)}\n`;
    }
    mkdirSync(dirname(join(targetDir, target)), { recursive: true });
    writeFileSync(join(targetDir, target), text);
    written.push(target);
  }
  return written;
}
