#!/usr/bin/env node
// The workspace ships TypeScript sources; tsx compiles them on the fly.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
