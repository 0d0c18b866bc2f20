import { describe, expect, it } from 'vitest';
import {
  type CellResult,
  cellText,
  type LabResults,
  markdown,
  svgChart,
  terminalMatrix,
} from '../src/index.ts';

const cell = (over: Partial<CellResult>): CellResult => ({
  config: 'plain',
  scenario: 'A',
  status: 'measured',
  sent: 100,
  visible: 100,
  duplicates: 0,
  losses: 0,
  outOfOrder: 0,
  fault: '3 answers lost',
  ms: 10,
  ...over,
});

const results: LabResults = {
  workload: { keys: 2, perKey: 50 },
  startedAt: '2026-12-04T07:00:00.000Z',
  ms: 1000,
  cells: [
    cell({ duplicates: 30, visible: 130 }),
    cell({ config: 'idempotent' }),
    cell({ config: 'fireAndForget', scenario: 'C', losses: 70, visible: 30 }),
    cell({ config: 'fireAndForget', scenario: 'A', status: 'n/a', reason: 'acks=0' }),
    cell({ config: 'manualCommit', scenario: 'D2', status: 'error', reason: 'timed out' }),
  ],
  inFlight: [
    {
      config: 'plain',
      lostAnswers: 0,
      sends: 200,
      maxInFlight: 5,
      visible: 200,
      duplicates: 0,
      losses: 0,
      outOfOrder: 0,
      failedSends: 0,
    },
  ],
};

describe('the lab report', () => {
  it('names what went wrong in a cell', () => {
    expect(results.cells.map(cellText)).toEqual(['dup 30', 'ok', 'loss 70', 'n/a', 'error']);
    expect(cellText(cell({ duplicates: 1, losses: 2, outOfOrder: 3 }))).toBe('dup 1, loss 2, ooo 3');
  });

  it('colours bad cells red and good ones green on a terminal, and lists errors', () => {
    const coloured = terminalMatrix(results, true);
    expect(coloured).toContain('\x1b[31mdup 30\x1b[0m');
    expect(coloured).toContain('\x1b[32mok\x1b[0m');
    expect(coloured).toContain('manual consumer commit / D2: timed out');
    const plain = terminalMatrix(results, false);
    expect(plain).not.toContain('\x1b[');
    // Columns line up: every row is as long as the header once colours are gone.
    const rows = plain.split('\n').slice(0, 8);
    expect(rows.map((r) => r.length)).toEqual(rows.map(() => rows[0]!.length));
  });

  it('writes markdown with bold bad cells and every number', () => {
    const md = markdown(results);
    expect(md).toContain('| plain producer | **dup 30** |');
    expect(md).toContain('| plain producer | A | 100 | 130 | 30 | 0 | 0 | 3 answers lost |');
    expect(md).toContain('| plain producer | 0 | 5 | 200 | 0 | 0 | 0 |');
  });

  it('draws the matrix as an SVG with vega-lite, without a browser', async () => {
    const svg = await svgChart(results);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('dup 30');
    expect(svg).toContain('fire-and-forget');
    // The bad cell's colour from the scale.
    expect(svg).toContain('#d9534f');
  });
});
