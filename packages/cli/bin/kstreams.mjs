#!/usr/bin/env node
// The workspace's `kstreams` (npm run kstreams, the CLI's tests): the TypeScript sources through tsx.
// The published package's bin is the compiled dist/main.js instead (publishConfig in package.json).
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
