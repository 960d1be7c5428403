import { type Finding, findingLine, isDrift } from './findings.js';
import type { OperationResult, VerifyReport } from './run.js';

export const EXIT = { match: 0, drift: 1, stopped: 2, incomplete: 3 } as const;

type Verdict = 'match' | 'drift' | 'not checked' | 'incomplete';

const VERDICT_EXIT: Record<Verdict, number> = { match: EXIT.match, drift: EXIT.drift, 'not checked': EXIT.stopped, incomplete: EXIT.incomplete };

const isChecked = (o: OperationResult) => o.skipped === undefined && o.unchecked === undefined;

/**
 * Drift wins, since it is a judgement made; a run that judged nothing has no verdict; an operation
 * left unchecked keeps the run from passing.
 */
export function verdict(report: VerifyReport): Verdict {
  if (report.drift) return 'drift';
  if (!report.operations.some(isChecked)) return 'not checked';
  return report.operations.some((o) => o.unchecked !== undefined) ? 'incomplete' : 'match';
}

export const exitCode = (report: VerifyReport) => VERDICT_EXIT[verdict(report)];

/** The target as printed: origin and path, never a user or password given inside the URL. */
export const targetName = (url: URL) => `${url.origin}${url.pathname.replace(/\/$/, '')}`;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The one line that says the outcome: the last line of the table, the `reason` of the JSON. */
export function summaryLine(report: VerifyReport): string {
  const drift = report.findings.filter(isDrift);
  const fresh = report.findings.filter((f) => f.kind === 'new').length;
  const checked = report.operations.filter(isChecked).length;
  const unchecked = report.operations.filter((o) => o.unchecked !== undefined);
  const skipped = report.operations.filter((o) => o.skipped !== undefined);
  const counts = [...(unchecked.length ? [`${unchecked.length} unchecked`] : []), ...(skipped.length ? [`${skipped.length} not called`] : [])];
  const extras = [`${plural(checked, 'operation')} checked`, ...(fresh ? [plural(fresh, 'new field')] : []), ...counts].join(', ');
  switch (verdict(report)) {
    case 'drift':
      return `drift: ${plural(drift.length, 'finding')} in ${plural(new Set(drift.map((f) => f.operation)).size, 'operation')} (${extras})`;
    case 'not checked': {
      const first = unchecked[0] ?? skipped[0];
      return `nothing could be checked (${counts.join(', ') || 'no operation'})${first ? `: ${first.operation}: ${first.unchecked ?? first.skipped}` : ''}`;
    }
    case 'incomplete':
      return `unchecked: ${plural(unchecked.length, 'operation')} could not be checked, no drift in the rest (${extras})`;
    case 'match':
      return `no drift: ${extras}`;
  }
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
    const fresh = found.filter((f) => f.kind === 'new').length;
    const words = o.skipped !== undefined ? `not called: ${o.skipped}`
      : o.unchecked !== undefined ? `unchecked: ${o.unchecked}`
      : [drift ? `${drift} drift` : 'ok', ...(fresh ? [`${fresh} new`] : [])].join(', ');
    return [o.operation, `${o.method} ${o.path}`, o.status === null ? '-' : String(o.status), words];
  });
  const lines = [
    `nodus-mock verify: ${targetName(target)} against nodus-mock's OpenAPI document ${report.documentVersion}`,
    '',
    ...columns([['operation', 'call', 'status', 'result'], ...opRows]),
  ];
  if (report.findings.length > 0) {
    const ordered = [...report.findings.filter(isDrift), ...report.findings.filter((f) => f.kind === 'unchecked'), ...report.findings.filter((f) => f.kind === 'new')];
    lines.push('', ...columns([['kind', 'finding'], ...ordered.map((f) => [f.kind === 'new' ? 'new (info)' : f.kind, findingLine(f)])]));
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
        exit_code: exitCode(outcome.report),
        result: verdict(outcome.report),
        reason: summaryLine(outcome.report),
        operations: outcome.report.operations,
        findings: outcome.report.findings.map((f) => ({ ...f, drift: isDrift(f) })),
      }
    : { target: targetName(target), exit_code: EXIT.stopped, result: 'not checked', reason: outcome.reason, operations: [], findings: [] };
  return `${JSON.stringify(body, null, 2)}\n`;
}
