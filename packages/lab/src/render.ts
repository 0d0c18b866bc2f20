// The lab's results as a terminal matrix (bad cells in red), markdown, and an SVG chart drawn by
// vega-lite + vega in plain JS (the 'none' renderer: no canvas, no browser).
import * as vega from 'vega';
import * as vl from 'vega-lite';
import { type CellResult, SCENARIOS } from './cell.ts';
import { CONFIGS, configById } from './configs.ts';
import { isBad, type LabResults } from './matrix.ts';
import { totalRecords } from './workload.ts';

/** The short text of a cell: what went wrong, or ok. */
export function cellText(c: CellResult): string {
  if (c.status === 'n/a') return 'n/a';
  if (c.status === 'error') return 'error';
  const parts: string[] = [];
  if (c.duplicates > 0) parts.push(`dup ${c.duplicates}`);
  if (c.losses > 0) parts.push(`loss ${c.losses}`);
  if (c.outOfOrder > 0) parts.push(`ooo ${c.outOfOrder}`);
  return parts.length > 0 ? parts.join(', ') : 'ok';
}

const ANSI = {
  red: '\x1b[31m',
  green: '\x1b[32m',
  grey: '\x1b[90m',
  yellow: '\x1b[33m',
  bold: '\x1b[1m',
  reset: '\x1b[0m',
};

function colour(c: CellResult, text: string, useColour: boolean): string {
  if (!useColour) return text;
  const code =
    c.status === 'n/a' ? ANSI.grey : c.status === 'error' ? ANSI.yellow : isBad(c) ? ANSI.red : ANSI.green;
  return `${code}${text}${ANSI.reset}`;
}

const cellOf = (r: LabResults, config: string, scenario: string) =>
  r.cells.find((c) => c.config === config && c.scenario === scenario);

export function terminalMatrix(r: LabResults, useColour = true): string {
  const first = Math.max(...CONFIGS.map((c) => c.label.length)) + 2;
  const width = Math.max(14, ...r.cells.map((c) => cellText(c).length + 2));
  const head = `${''.padEnd(first)}${SCENARIOS.map((s) => s.id.padEnd(width)).join('')}`;
  const rows = CONFIGS.map((config) => {
    const cells = SCENARIOS.map((s) => {
      const c = cellOf(r, config.id, s.id);
      if (!c) return ''.padEnd(width);
      const text = cellText(c);
      return colour(c, text, useColour) + ' '.repeat(width - text.length);
    });
    return `${config.label.padEnd(first)}${cells.join('')}`;
  });
  const legend = SCENARIOS.map((s) => `  ${s.id}: ${s.title}`).join('\n');
  const errors = r.cells
    .filter((c) => c.status === 'error')
    .map((c) => `  ${configById(c.config).label} / ${c.scenario}: ${c.reason}`);
  return [head, ...rows, '', legend, ...(errors.length ? ['', 'errors:', ...errors] : [])].join('\n');
}

export function inFlightLines(r: LabResults): string[] {
  return r.inFlight.map(
    (f) =>
      `${configById(f.config).label}, ${f.sends} concurrent sends, ${f.lostAnswers} answers lost: ` +
      `max ${f.maxInFlight} in flight; dup ${f.duplicates}, loss ${f.losses}, out of order ${f.outOfOrder}`,
  );
}

export function markdown(r: LabResults): string {
  const w = r.workload;
  const out: string[] = [];
  out.push('# The guarantees lab: measured matrix', '');
  out.push(
    `Written by \`npm run lab\` on ${r.startedAt} (${Math.round(r.ms / 1000)} s). Each cell sent ` +
      `${totalRecords(w)} records (${w.keys} keys × sequence 1..${w.perKey}) through the fault proxy to ` +
      'the real broker; its output was read `read_committed` and checked by `kstreams verify ' +
      '--expect-sequences --against` (every key must end at 1..n, each once).',
    '',
    'Cell text: `ok`, or what a reader saw: `dup` repeated records (or a count above n), `loss` ' +
      'records never seen, `ooo` records behind a later one of their key. **Bold** cells are bad.',
    '',
    '![matrix](matrix.svg)',
    '',
  );
  out.push(`| configuration | ${SCENARIOS.map((s) => `${s.id}: ${s.title}`).join(' | ')} |`);
  out.push(`|---|${SCENARIOS.map(() => '---').join('|')}|`);
  for (const config of CONFIGS) {
    const cells = SCENARIOS.map((s) => {
      const c = cellOf(r, config.id, s.id);
      if (!c) return '';
      const t = cellText(c);
      return c.status === 'measured' && isBad(c) ? `**${t}**` : t;
    });
    out.push(`| ${config.label} | ${cells.join(' | ')} |`);
  }
  out.push('', '## Every cell', '');
  out.push(
    '| configuration | scenario | sent | visible | duplicates | losses | out of order | fault as it happened |',
  );
  out.push('|---|---|---:|---:|---:|---:|---:|---|');
  for (const c of r.cells) {
    const label = configById(c.config).label;
    if (c.status !== 'measured') {
      out.push(`| ${label} | ${c.scenario} | | | | | | ${c.status}: ${c.reason ?? ''} |`);
      continue;
    }
    out.push(
      `| ${label} | ${c.scenario} | ${c.sent} | ${c.visible} | ${c.duplicates} | ${c.losses} | ${c.outOfOrder} | ${c.fault.replaceAll('|', '/')} |`,
    );
  }
  out.push('', '## max.in.flight.requests.per.connection = 5', '');
  out.push(
    'One partition, one key, 200 single-record `send()` calls started at once with ' +
      '`maxInFlightRequests: 5`; the proxy delays each Produce answer by 20 ms so requests can pile ' +
      'up, counts the requests in flight on the connection, and (second row of each) loses the ' +
      'answers to the first two requests.',
    '',
  );
  out.push(
    '| producer | answers lost | max in flight (at the proxy) | visible | duplicates | losses | out of order |',
  );
  out.push('|---|---:|---:|---:|---:|---:|---:|');
  for (const f of r.inFlight)
    out.push(
      `| ${configById(f.config).label} | ${f.lostAnswers} | ${f.maxInFlight} | ${f.visible} | ${f.duplicates} | ${f.losses} | ${f.outOfOrder} |`,
    );
  out.push('', '## Configurations', '', '| configuration | settings |', '|---|---|');
  for (const c of CONFIGS) out.push(`| ${c.label} | ${c.settings} |`);
  out.push('', '## Scenarios', '', '| id | scenario | fault |', '|---|---|---|');
  for (const s of SCENARIOS) out.push(`| ${s.id} | ${s.title} | ${s.fault} |`);
  out.push('');
  return out.join('\n');
}

type Verdict = 'ok' | 'duplicates' | 'losses' | 'duplicates and losses' | 'out of order' | 'n/a' | 'error';

function verdict(c: CellResult): Verdict {
  if (c.status !== 'measured') return c.status;
  if (c.duplicates > 0 && c.losses > 0) return 'duplicates and losses';
  if (c.duplicates > 0) return 'duplicates';
  if (c.losses > 0) return 'losses';
  if (c.outOfOrder > 0) return 'out of order';
  return 'ok';
}

/** The matrix as a vega-lite heat map with the cell texts, rendered to SVG without a browser. */
export async function svgChart(r: LabResults): Promise<string> {
  const values = r.cells.map((c) => ({
    configuration: configById(c.config).label,
    scenario: `${c.scenario}: ${SCENARIOS.find((s) => s.id === c.scenario)!.title}`,
    verdict: verdict(c),
    text: cellText(c),
  }));
  const spec: vl.TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `What a read_committed reader saw (${totalRecords(r.workload)} records a cell)`,
    data: { values },
    width: 720,
    height: 300,
    encoding: {
      x: {
        field: 'scenario',
        type: 'nominal',
        sort: null,
        axis: { labelAngle: 0, orient: 'top', title: null, labelLimit: 160 },
      },
      y: { field: 'configuration', type: 'nominal', sort: null, axis: { title: null } },
    },
    layer: [
      {
        mark: { type: 'rect', stroke: 'white', strokeWidth: 2 },
        encoding: {
          color: {
            field: 'verdict',
            type: 'nominal',
            scale: {
              domain: ['ok', 'duplicates', 'losses', 'duplicates and losses', 'out of order', 'n/a', 'error'],
              range: ['#4c9f70', '#d9534f', '#8e44ad', '#7b241c', '#e67e22', '#d0d0d0', '#f1c40f'],
            },
            legend: { title: null, orient: 'bottom' },
          },
        },
      },
      {
        mark: { type: 'text', fontSize: 12 },
        encoding: { text: { field: 'text' }, color: { value: 'black' } },
      },
    ],
  };
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}
