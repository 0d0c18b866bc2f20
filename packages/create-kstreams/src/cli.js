// `npm create kstreams@latest my-app`: checks the arguments and the names, writes the project and
// says what to run next. Mistakes the user fixes exit 2 with one line saying what to change.
import { readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCreateArgs, USAGE } from './args.js';
import { applicationIdFor, npmNameProblem, suggestNpmName } from './names.js';
import { CreateError, scaffold } from './scaffold.js';

const CORE = '@kstreams/core';

/** This package's version: the kstreams release it was published with. */
export function ownVersion() {
  const pkg = JSON.parse(
    readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json'), 'utf8'),
  );
  return /** @type {string} */ (pkg.version);
}

/**
 * @typedef {object} Io
 * @property {string} cwd
 * @property {(line: string) => void} out
 * @property {(line: string) => void} err
 */

/**
 * Runs the command; returns the exit code (0 done, 2 a mistake in the arguments or the target).
 * @param {readonly string[]} argv
 * @param {Io} io
 * @returns {number}
 */
export function main(argv, io) {
  try {
    const options = parseCreateArgs(argv);
    if (options === 'help') {
      io.out(USAGE);
      return 0;
    }
    const targetDir = resolve(io.cwd, options.projectDir);
    const name = options.name ?? basename(targetDir);
    const problem = npmNameProblem(name);
    if (problem !== undefined) {
      const how = options.name === undefined ? 'name the directory' : 'pass --name';
      throw new CreateError(
        `"${name}" cannot be an npm package name: ${problem}. ${how} something like "${suggestNpmName(name)}".`,
      );
    }
    const { [CORE]: coreSpec, ...overrides } = options.specs;
    if (coreSpec !== undefined && options.kstreamsVersion !== undefined) {
      throw new CreateError(`give --kstreams-version or --spec ${CORE}=..., not both`);
    }
    const kstreamsSpec = coreSpec ?? options.kstreamsVersion ?? `^${ownVersion()}`;
    const files = scaffold({
      targetDir,
      name,
      applicationId: applicationIdFor(name),
      kstreamsSpec,
      overrides,
    });
    const where = relative(io.cwd, targetDir) || '.';
    io.out(`Created ${name} in ${targetDir} (${files.length} files, ${CORE} ${kstreamsSpec}).\n`);
    io.out('Next:');
    if (where !== '.') io.out(`  cd ${where.includes(' ') ? JSON.stringify(where) : where}`);
    io.out('  npm install');
    io.out('  npm test                                  # the topology, with TopologyTestDriver');
    io.out('  docker compose up -d kafka create-topics  # Kafka at 127.0.0.1:9092, and the topics');
    io.out('  npm run dev                               # the service, restarted on every change');
    io.out('\nREADME.md says how to feed it lines and read the counts.');
    return 0;
  } catch (error) {
    if (error instanceof CreateError) {
      io.err(`create-kstreams: ${error.message}`);
      io.err('Run with --help for the options.');
      return 2;
    }
    throw error;
  }
}
