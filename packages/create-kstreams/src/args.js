// The command line: `create-kstreams <project-dir> [--name N] [--kstreams-version V] [--spec P=S]...`.
import { parseArgs } from 'node:util';
import { CreateError } from './scaffold.js';

export const USAGE = `Usage: npm create kstreams@latest <project-dir> [-- options]
       npx create-kstreams <project-dir> [options]

Writes a new kstreams service (a word count) into <project-dir>, which must be new or empty.

Options:
  --name <name>                the npm package name (default: the directory's name)
  --kstreams-version <range>   the @kstreams/core version or range to depend on
                               (default: ^ this create-kstreams' own version)
  --spec <package>=<spec>      the dependency spec of a kstreams package, e.g.
                               --spec @kstreams/core=file:/tmp/kstreams-core-0.1.0.tgz; for
                               packages other than @kstreams/core it becomes an npm override
                               (repeatable; for trying unpublished builds)
  -h, --help                   this text`;

/** A dependency spec as it goes into package.json: no white space, and nothing JSON must escape. */
const SPEC = /^[^\s"'\\]+$/;

/**
 * @typedef {object} CreateOptions
 * @property {string} projectDir
 * @property {string | undefined} name
 * @property {string | undefined} kstreamsVersion
 * @property {Record<string, string>} specs package name -> dependency spec
 */

/**
 * @param {readonly string[]} argv
 * @returns {CreateOptions | 'help'}
 */
export function parseCreateArgs(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string' },
        'kstreams-version': { type: 'string' },
        spec: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new CreateError(/** @type {Error} */ (error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length === 0) throw new CreateError('the project directory is missing, e.g. my-app');
  if (positionals.length > 1) {
    throw new CreateError(`give one project directory, got ${positionals.length}: ${positionals.join(' ')}`);
  }
  const kstreamsVersion = values['kstreams-version'];
  if (kstreamsVersion !== undefined && !SPEC.test(kstreamsVersion)) {
    throw new CreateError(
      `--kstreams-version takes a version or range such as 0.1.0, got "${kstreamsVersion}"`,
    );
  }
  /** @type {Record<string, string>} */
  const specs = {};
  for (const spec of values.spec ?? []) {
    const match = /^(@kstreams\/[a-z0-9-._]+)=(.+)$/.exec(spec);
    if (match && !SPEC.test(/** @type {string} */ (match[2]))) {
      throw new CreateError(
        `--spec ${match[1]}= takes a version, range or file: path without spaces or quotes`,
      );
    }
    if (!match) {
      throw new CreateError(
        `--spec takes <package>=<spec> for a @kstreams package, e.g. @kstreams/core=file:/tmp/core.tgz; got "${spec}"`,
      );
    }
    specs[/** @type {string} */ (match[1])] = /** @type {string} */ (match[2]);
  }
  return { projectDir: /** @type {string} */ (positionals[0]), name: values.name, kstreamsVersion, specs };
}
