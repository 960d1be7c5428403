/**
 * The measuring discipline every figure shares. The machine is shared and noisy, so no figure is
 * an absolute number: each side is measured once per round, the sides alternate (the order is
 * reversed every round, so a load spike that grows or fades hits both sides alike), and a figure
 * is the ratio of the medians, subject over baseline.
 */

export async function alternate<K extends string, T>(
  rounds: number,
  arms: Record<K, () => Promise<T>>,
  onRound?: (round: number, results: Record<K, T>) => void,
): Promise<Record<K, T[]>> {
  const names = Object.keys(arms) as K[];
  const out = Object.fromEntries(names.map((n) => [n, [] as T[]])) as Record<K, T[]>;
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    const results = {} as Record<K, T>;
    for (const name of order) results[name] = await arms[name]();
    for (const name of names) out[name].push(results[name]);
    onRound?.(round, results);
  }
  return out;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export interface Target {
  /** `>=` when more is better (throughput), `<=` when less is (time, memory, cost). */
  op: '>=' | '<=';
  ratio: number;
}

interface Side {
  label: string;
  median: number;
  rounds: number[];
}

export interface Figure {
  id: string;
  title: string;
  unit: string;
  subject: Side;
  baseline: Side;
  /** median(subject) / median(baseline). */
  ratio: number;
  /** Absent for figures recorded for information (p99 latencies). */
  target?: Target;
  pass?: boolean;
  /** Anything else a reader of results.json needs: row counts, URLs, raw load results. */
  detail?: Record<string, unknown>;
}

interface FigureSpec {
  id: string;
  title: string;
  unit: string;
  target?: Target;
}

export function figure(
  spec: FigureSpec,
  subject: { label: string; rounds: number[] },
  baseline: { label: string; rounds: number[] },
  detail?: Record<string, unknown>,
): Figure {
  const s = median(subject.rounds);
  const b = median(baseline.rounds);
  const ratio = s / b;
  const pass = spec.target && (spec.target.op === '>=' ? ratio >= spec.target.ratio : ratio <= spec.target.ratio);
  return {
    ...spec,
    subject: { ...subject, median: s },
    baseline: { ...baseline, median: b },
    ratio,
    ...(pass === undefined ? {} : { pass }),
    ...(detail ? { detail } : {}),
  };
}
