#!/usr/bin/env node
// Entry point of the `kstreams` bin.
import { runCli } from './command.ts';

process.exitCode = await runCli(process.argv.slice(2));
