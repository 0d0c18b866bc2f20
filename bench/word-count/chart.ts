// The word-count results as an SVG bar chart: words/s, words per CPU-second and peak RSS side by
// side, one bar per app that ran and verified. A plain SVG string: three bar panels need no library.
import { fmt, type Row } from './report.ts';
import { variantOf } from './variants.ts';

const COLORS = {
  kstreams: '#2f6fb3',
  java: '#d9822b',
  kafkajs: '#8a8a8a',
  platformatic: '#5a9e6f',
} as const;
const LABEL_W = 180;
const PANEL_W = 250;
const GAP = 30;
const BAR_H = 16;
const ROW_H = 24;
const TOP = 56;

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

interface Panel {
  title: string;
  value(r: Row): number;
  unit?: string;
}

const PANELS: Panel[] = [
  { title: 'words / s (higher is better)', value: (r) => r.wordsPerS! },
  { title: 'words / CPU-second (higher is better)', value: (r) => r.wordsPerCpuS! },
  { title: 'peak RSS, MB (lower is better)', value: (r) => r.rssMb ?? 0 },
];

export function chartSvg(rows: Row[], caption: string): string {
  const shown = rows.filter((r) => r.ok);
  const width = LABEL_W + PANELS.length * (PANEL_W + GAP);
  const height = TOP + shown.length * ROW_H + 40;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${xml(caption)}</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">${xml(caption)}</text>`,
  ];
  shown.forEach((r, i) => {
    const y = TOP + i * ROW_H;
    parts.push(`<text x="${LABEL_W - 8}" y="${y + BAR_H - 3}" text-anchor="end">${xml(r.kind)}</text>`);
  });
  PANELS.forEach((panel, p) => {
    const x0 = LABEL_W + p * (PANEL_W + GAP);
    const max = Math.max(1, ...shown.map(panel.value));
    parts.push(`<text x="${x0}" y="${TOP - 12}" font-weight="bold">${xml(panel.title)}</text>`);
    parts.push(
      `<line x1="${x0}" y1="${TOP - 4}" x2="${x0}" y2="${TOP + shown.length * ROW_H}" stroke="#444"/>`,
    );
    shown.forEach((r, i) => {
      const value = panel.value(r);
      // Room is kept on the right for the figure.
      const w = Math.max(1, (value / max) * (PANEL_W - 60));
      const y = TOP + i * ROW_H;
      const color = COLORS[variantOf(r.kind).runtime];
      parts.push(`<rect x="${x0}" y="${y}" width="${w.toFixed(1)}" height="${BAR_H}" fill="${color}"/>`);
      parts.push(`<text x="${(x0 + w + 4).toFixed(1)}" y="${y + BAR_H - 3}">${fmt(value)}</text>`);
    });
  });
  const legendY = TOP + shown.length * ROW_H + 24;
  Object.entries(COLORS).forEach(([name, color], i) => {
    const x = LABEL_W + i * 120;
    parts.push(`<rect x="${x}" y="${legendY - 10}" width="12" height="12" fill="${color}"/>`);
    parts.push(`<text x="${x + 18}" y="${legendY}">${name}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
