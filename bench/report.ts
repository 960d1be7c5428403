import type { Figure } from './rounds.js';

const UNIT_DIGITS: Record<string, number> = { 'req/s': 0, 'rows/s': 0, ms: 1, MiB: 1 };

const value = (n: number, unit: string) =>
  `${n.toLocaleString('en', { maximumFractionDigits: UNIT_DIGITS[unit] ?? 2, minimumFractionDigits: UNIT_DIGITS[unit] ?? 2 })} ${unit}`;

/** The rows of the table: figure, subject, baseline, ratio, target, result. */
function tableRows(figures: readonly Figure[]): string[][] {
  return figures.map((f) => [
    f.title,
    `${value(f.subject.median, f.unit)} (${f.subject.label})`,
    `${value(f.baseline.median, f.unit)} (${f.baseline.label})`,
    // A baseline of 0 (a p99 under autocannon's 1 ms resolution) has no ratio.
    Number.isFinite(f.ratio) ? `${f.ratio.toFixed(2)}×` : '—',
    f.target ? `${f.target.op === '>=' ? '≥' : '≤'} ${f.target.ratio}×` : '—',
    f.pass === undefined ? 'info' : f.pass ? 'pass' : 'MISS',
  ]);
}

const HEADER = ['figure', 'subject (median)', 'baseline (median)', 'ratio', 'target', 'result'];

/** A Markdown table: readable in a terminal and pasted as is into docs/performance.md. */
export function markdownTable(figures: readonly Figure[]): string {
  return markdownRows([HEADER, ...tableRows(figures)]);
}

/** A Markdown table of these rows, the first one its header. */
export function markdownRows(rows: readonly string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(rows[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}
