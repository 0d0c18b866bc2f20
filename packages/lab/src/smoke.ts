import type { ScenarioId } from './cell.ts';
import type { ConfigId } from './configs.ts';
import { openLab } from './context.ts';
import { runLabCell } from './matrix.ts';

const ctx = await openLab(['127.0.0.1:9092'], { keys: 10, perKey: 100 });
try {
  for (const spec of process.argv.slice(2)) {
    const [c, s] = spec.split(':');
    console.log(JSON.stringify(await runLabCell(ctx, c as ConfigId, s as ScenarioId)));
  }
} finally {
  await ctx.cleanUp();
  await ctx.close();
}
