import { type Finding, findingLine, isDrift } from './findings.js';
import type { VerifyReport } from './run.js';

export const EXIT = { match: 0, drift: 1, stopped: 2 } as const;

/** The target as printed: origin and path, never a user or password given inside the URL. */
export const targetName = (url: URL) => `${url.origin}${url.pathname.replace(/\/$/, '')}`;

/** Replaces every secret with a marker, longest first so a secret inside another goes too. */
export function scrub(text: string, secrets: string[]): string {
  let out = text;
  for (const s of [...secrets].filter((x) => x.length > 0).sort((a, b) => b.length - a.length)) out = out.replaceAll(s, '[redacted]');
  return out;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The one line that says the outcome: the last line of the table, the `reason` of the JSON. */
export function summaryLine(report: VerifyReport): string {
  const drift = report.findings.filter(isDrift);
  const fresh = report.findings.length - drift.length;
  const checked = report.operations.filter((o) => o.skipped === undefined).length;
  const skipped = report.operations.length - checked;
  const extras = [`${plural(checked, 'operation')} checked`, ...(fresh ? [plural(fresh, 'new field')] : []), ...(skipped ? [`${skipped} not checked`] : [])].join(', ');
  if (drift.length === 0) return `no drift: ${extras}`;
  const ops = new Set(drift.map((f) => f.operation)).size;
  return `drift: ${plural(drift.length, 'finding')} in ${plural(ops, 'operation')} (${extras})`;
}

function columns(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  '));
}

/** The report for people: one line per operation, one per finding, then the outcome. */
export function table(report: VerifyReport, target: URL): string {
  const byOp = new Map<string, Finding[]>();
  for (const f of report.findings) byOp.set(f.operation, [...(byOp.get(f.operation) ?? []), f]);
  const opRows = report.operations.map((o) => {
    const found = byOp.get(o.operation) ?? [];
    const drift = found.filter(isDrift).length;
    const words = o.skipped !== undefined ? `not checked: ${o.skipped}` : [drift ? `${drift} drift` : 'ok', ...(found.length > drift ? [`${found.length - drift} new`] : [])].join(', ');
    return [o.operation, `${o.method} ${o.path}`, o.status === null ? '-' : String(o.status), words];
  });
  const lines = [
    `nodus-mock verify: ${targetName(target)} against nodus-mock's OpenAPI document ${report.documentVersion}`,
    '',
    ...columns([['operation', 'call', 'status', 'result'], ...opRows]),
  ];
  if (report.findings.length > 0) {
    const ordered = [...report.findings.filter(isDrift), ...report.findings.filter((f) => !isDrift(f))];
    lines.push('', ...columns([['kind', 'finding'], ...ordered.map((f) => [isDrift(f) ? f.kind : 'new (info)', findingLine(f)])]));
  }
  lines.push('', summaryLine(report));
  return `${lines.join('\n')}\n`;
}

/** The report for CI. */
export function jsonReport(target: URL, outcome: { report: VerifyReport } | { reason: string }): string {
  const body = 'report' in outcome
    ? {
        target: targetName(target),
        document_version: outcome.report.documentVersion,
        exit_code: outcome.report.drift ? EXIT.drift : EXIT.match,
        result: outcome.report.drift ? 'drift' : 'match',
        reason: summaryLine(outcome.report),
        operations: outcome.report.operations,
        findings: outcome.report.findings.map((f) => ({ ...f, drift: isDrift(f) })),
      }
    : { target: targetName(target), exit_code: EXIT.stopped, result: 'not checked', reason: outcome.reason, operations: [], findings: [] };
  return `${JSON.stringify(body, null, 2)}\n`;
}
