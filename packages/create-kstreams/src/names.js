// The project's names: the npm package name the user gives (or the directory's), and the Kafka
// Streams applicationId derived from it (it names the consumer group and the internal topics).
import { builtinModules } from 'node:module';

// npm's rules for a new package's name (as the registry and validate-npm-package-name apply them):
// lower case, URL-safe, not starting with "." or "_", an optional @scope.
const NPM_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;
const MAX_NAME_LENGTH = 214;
const RESERVED = new Set(['node_modules', 'favicon.ico']);

/**
 * Why `name` cannot be an npm package name, or undefined if it can.
 * @param {string} name
 * @returns {string | undefined}
 */
export function npmNameProblem(name) {
  if (name.length === 0) return 'it is empty';
  if (name.length > MAX_NAME_LENGTH) return `it is longer than ${MAX_NAME_LENGTH} characters`;
  if (name !== name.toLowerCase()) return 'it has upper-case letters';
  if (/^[._]/.test(name)) return 'it starts with "." or "_"';
  if (RESERVED.has(name) || builtinModules.includes(name))
    return 'the name is reserved (a Node.js core module)';
  if (!NPM_NAME.test(name))
    return 'it may only hold lower-case letters, digits, "-", ".", "_" and "~" (and one "@scope/" prefix)';
  return undefined;
}

/**
 * A suggestion for a name npm accepts, from a directory name such as "My App".
 * @param {string} name
 * @returns {string}
 */
export function suggestNpmName(name) {
  const suggestion = name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9-._~]+/g, '-')
    .replace(/^[-._]+|-+$/g, '');
  return suggestion.length > 0 ? suggestion.slice(0, MAX_NAME_LENGTH) : 'kstreams-app';
}

/**
 * The default applicationId for a package name: the name without its scope, in the characters
 * Kafka Streams allows for application.id (letters, digits, ".", "_", "-").
 * @param {string} packageName a valid npm name
 * @returns {string}
 */
export function applicationIdFor(packageName) {
  const unscoped = packageName.slice(packageName.indexOf('/') + 1);
  return unscoped.replace(/[^a-zA-Z0-9._-]/g, '-');
}
