// A globalSetup of the integration project: an empty folder for this run's packed packages
// (scripts/test/packed.ts packs into it on first use, so a run without the consumer or starter
// test packs nothing), removed when the run ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import './packed.ts';

export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'kstreams-packed-'));
  project.provide('packDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
