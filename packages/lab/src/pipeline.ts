// Helpers the read-process-write families share: filling the input, knowing when a (restarted)
// application is done, timeouts, temp dirs.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LabContext } from './context.ts';
import { waitForCaughtUp, waitForOutput } from './watch.ts';
import { expectedFinal, type SeqRecord } from './workload.ts';

export async function fillInput(ctx: LabContext, name: string, records: SeqRecord[]): Promise<string> {
  const input = await ctx.createTopic(name);
  const producer = ctx.kafka().producer({ idempotent: true });
  await producer.connect();
  for (let i = 0; i < records.length; i += 5000)
    await producer.send({ topic: input, acks: -1, messages: records.slice(i, i + 5000) });
  await producer.disconnect();
  return input;
}

/**
 * Waits until the output is complete and the application's group has committed the end of its
 * input (so a restarted process has redone what it was going to); returns a note if not.
 */
export async function complete(
  ctx: LabContext,
  output: string,
  group: { groupId: string; topics: string[] },
  timeoutMs = 60_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const expected = expectedFinal(ctx.workload);
  const full = await waitForOutput({ kafka: ctx.kafka(), topic: output, expected, timeoutMs, settleMs: 0 });
  const left = Math.max(1000, deadline - Date.now());
  const caughtUp = await waitForCaughtUp(ctx.kafka(), group.groupId, group.topics, left);
  if (full && caughtUp) return '';
  return `; incomplete after ${timeoutMs / 1000} s (output ${full ? 'complete' : 'short'}, input ${caughtUp ? '' : 'not '}all committed)`;
}

export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export const tempDir = (prefix: string): string => mkdtempSync(join(tmpdir(), prefix));
