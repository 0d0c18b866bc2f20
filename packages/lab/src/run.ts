// `npm run lab`: every scenario under every configuration on the broker at KAFKA_BROKERS (the local
// one by default), printed as a matrix and written to docs/lab/ (matrix.md, matrix.svg,
// results.json). LAB_PER_KEY and LAB_KEYS size the workload.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareChildren } from './child.ts';
import { configById } from './configs.ts';
import { openLab } from './context.ts';
import { isBad, runLab } from './matrix.ts';
import { cellText, inFlightLines, markdown, svgChart, terminalMatrix } from './render.ts';

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',').map((b) => b.trim());
const workload = { keys: Number(process.env.LAB_KEYS ?? 10), perKey: Number(process.env.LAB_PER_KEY ?? 500) };
const outDir = join(import.meta.dirname, '../../../docs/lab');
const tty = process.stdout.isTTY === true && !process.env.NO_COLOR;

console.log(`[lab] ${workload.keys * workload.perKey} records a cell, broker ${brokers.join(',')}`);
await prepareChildren();
const ctx = await openLab(brokers, workload);
try {
  const results = await runLab(ctx, {
    onCell: (c) =>
      console.log(
        `[lab] ${configById(c.config).label} / ${c.scenario}: ${cellText(c)}${c.status === 'measured' ? ` (visible ${c.visible}, ${c.fault}, ${Math.round(c.ms / 100) / 10} s)` : ` (${c.reason})`}`,
      ),
  });
  console.log(`\n${terminalMatrix(results, tty)}\n`);
  for (const line of inFlightLines(results)) console.log(line);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(outDir, 'matrix.md'), markdown(results));
  writeFileSync(join(outDir, 'matrix.svg'), await svgChart(results));
  const bad = results.cells.filter((c) => c.status === 'measured' && isBad(c)).length;
  const errors = results.cells.filter((c) => c.status === 'error').length;
  console.log(
    `\n[lab] ${results.cells.length} cells, ${bad} bad, ${errors} errors, ${Math.round(results.ms / 1000)} s; wrote docs/lab/matrix.md, matrix.svg, results.json`,
  );
  if (errors > 0) process.exitCode = 1;
} finally {
  await ctx.cleanUp();
  await ctx.close();
}
