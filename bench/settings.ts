/**
 * Knobs for `npm run bench`, from the environment, so a quick run is one line:
 * `BENCH_ROUNDS=2 BENCH_SECONDS=1 BENCH_EVENTS=20000 npm run bench`.
 */
function count(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

export interface Settings {
  /** Rounds per figure; every round measures each side once. */
  rounds: number;
  /**
   * Rounds of the figures whose round takes about a second (cold start, materialise): cheap, and
   * single operations vary more on a shared machine than seconds of load do, so take more.
   */
  shortRounds: number;
  /** Seconds of load per HTTP round. */
  seconds: number;
  /** Seconds of untimed load on each server before its first round (JIT, caches). */
  warmupSeconds: number;
  /** Concurrent connections of the load generator. */
  connections: number;
  /** RL event rows seeded for the depth and memory figures. */
  events: number;
  /** Page reads at random depths before the memory of the seeded server is taken. */
  memoryReads: number;
  /** Figure ids to run (BENCH_ONLY=recipes,launch); empty means all. */
  only: string[];
}

/** `defaults` are a command's own, where the variables are not set (bench:compare takes more short rounds). */
export function readSettings(defaults: { shortRounds?: number } = {}): Settings {
  const rounds = count('BENCH_ROUNDS', 5);
  return {
    rounds,
    shortRounds: count('BENCH_SHORT_ROUNDS', defaults.shortRounds ?? 3 * rounds),
    seconds: count('BENCH_SECONDS', 5),
    warmupSeconds: count('BENCH_WARMUP_SECONDS', 2, 0),
    connections: count('BENCH_CONNECTIONS', 10),
    events: count('BENCH_EVENTS', 1_000_000, 1000),
    memoryReads: count('BENCH_MEMORY_READS', 2000),
    only: (process.env.BENCH_ONLY ?? '').split(',').map((s) => s.trim()).filter(Boolean),
  };
}
