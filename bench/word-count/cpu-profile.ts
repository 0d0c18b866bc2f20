// Summarises a V8 .cpuprofile (from `node --cpu-prof`) into self time per function and per
// component, so that a run with BENCH_PROFILE says where an app's CPU goes.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileSummary {
  totalMs: number;
  functions: Array<{ name: string; where: string; selfMs: number }>;
  components: Array<{ component: string; selfMs: number }>;
}

/** Which part of the stack a script belongs to. */
function componentOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const ours = /\/(packages\/[^/]+\/src\/[^/]+|bench)\//.exec(url);
  if (ours) return ours[1]!;
  if (url.startsWith('node:')) return 'node internals';
  return url;
}

const INLINE_MAP = /\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\s*$/;

/**
 * The apps run bundled (scripts/test/bundle.ts, with an inline source map): a frame of the bundle
 * is given the file and line of the source it was built from.
 */
function sourceMapper(): (frame: ProfileNode['callFrame']) => ProfileNode['callFrame'] {
  const maps = new Map<string, SourceMap | undefined>();
  return (frame) => {
    if (!frame.url.endsWith('.mjs') || !frame.url.includes('kstreams-bundles')) return frame;
    let map = maps.get(frame.url);
    if (!maps.has(frame.url)) {
      const inline = INLINE_MAP.exec(readFileSync(fileURLToPath(frame.url), 'utf8'));
      map = inline ? new SourceMap(JSON.parse(Buffer.from(inline[1]!, 'base64').toString())) : undefined;
      maps.set(frame.url, map);
    }
    const entry = map?.findEntry(frame.lineNumber, frame.columnNumber) as
      | { originalSource?: string; originalLine?: number }
      | undefined;
    if (!entry?.originalSource) return frame;
    const url = new URL(entry.originalSource, frame.url).href;
    return { ...frame, url, lineNumber: entry.originalLine ?? frame.lineNumber };
  };
}

export async function summariseCpuProfile(file: string, top = 25): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  // Self time from the samples and their time deltas (hitCount alone ignores uneven intervals).
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const next = deltas[i + 1] ?? 0;
    selfUs.set(samples[i]!, (selfUs.get(samples[i]!) ?? 0) + Math.max(0, next));
  }
  const byFunction = new Map<string, { name: string; where: string; selfMs: number }>();
  const byComponent = new Map<string, number>();
  const original = sourceMapper();
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (us === 0) continue;
    const { functionName, url, lineNumber } = original(node.callFrame);
    const name = functionName || '(anonymous)';
    const short = url
      .replace(/^.*\/node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '')
      .replace(/^.*\/main\//, '');
    const where = url ? `${short}:${lineNumber + 1}` : '';
    const key = `${name}@${where}`;
    const entry = byFunction.get(key) ?? { name, where, selfMs: 0 };
    entry.selfMs += us / 1000;
    byFunction.set(key, entry);
    const component = componentOf(url, name);
    byComponent.set(component, (byComponent.get(component) ?? 0) + us / 1000);
  }
  return {
    totalMs: (profile.endTime - profile.startTime) / 1000,
    functions: [...byFunction.values()].sort((a, b) => b.selfMs - a.selfMs).slice(0, top),
    components: [...byComponent]
      .map(([component, selfMs]) => ({ component, selfMs }))
      .sort((a, b) => b.selfMs - a.selfMs),
  };
}

export function formatCpuProfile(label: string, s: ProfileSummary): string {
  const pct = (ms: number) => `${((100 * ms) / s.totalMs).toFixed(1).padStart(5)}%`;
  const lines = [`CPU profile of ${label}: ${(s.totalMs / 1000).toFixed(1)} s wall, self time by component:`];
  for (const c of s.components.slice(0, 12)) {
    lines.push(`  ${pct(c.selfMs)} ${c.selfMs.toFixed(0).padStart(7)} ms  ${c.component}`);
  }
  lines.push('  top functions by self time:');
  for (const f of s.functions) {
    lines.push(`  ${pct(f.selfMs)} ${f.selfMs.toFixed(0).padStart(7)} ms  ${f.name}  ${f.where}`);
  }
  return lines.join('\n');
}
