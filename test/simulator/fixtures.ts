import type { RecipeSimulation, SimRLEvent, SimReceipt, SimSpec, Timeline, TimelineItem, WorkloadStatus } from '../../server/simulator/index.js';

/** The leg-counting recipe's simulation numbers, as the catalog would declare them. */
export const SIMULATION: RecipeSimulation = {
  base_pass_rate: 0.55,
  trained_pass_rate: 0.72,
  group_size: 8,
  eval_concurrency: 8,
  seconds_per_attempt: 6,
  seconds_per_training_step: 45,
  planning_seconds: 5,
  reserving_seconds: 20,
  provisioning_seconds: 90,
  export_seconds: 30,
  error_rate: 0.02,
  infrastructure_failure_rate: 0.03,
};

export const CREATED_AT = Date.parse('2026-03-01T12:00:00Z');

type SpecOverrides = Partial<Omit<SimSpec, 'simulation'>> & { simulation?: Partial<RecipeSimulation> };

/** A managed train run of the leg-counting recipe; override anything. */
export function specFor(overrides: SpecOverrides = {}): SimSpec {
  const { simulation, ...rest } = overrides;
  return {
    version: 1,
    kind: 'recipe',
    workloadId: 'wl_sim_test_0001',
    stageId: 'main',
    mode: 'train',
    model: 'Qwen/Qwen3-0.6B',
    recipe: { id: 'reasoning-gym-leg-counting', version: '1.0.0' },
    seed: 42,
    createdAtMs: CREATED_AT,
    evaluationTasks: 16,
    trainingSteps: 20,
    includeTraces: false,
    taskset: 'reasoning-gym/leg_counting',
    simulation: { ...SIMULATION, ...simulation },
    usdPerHour: 2.4,
    privateGrading: true,
    ...rest,
  };
}

export const evaluateSpec = (overrides: SpecOverrides = {}) => specFor({ mode: 'evaluate', trainingSteps: 0, ...overrides });
export const customSpec = (overrides: SpecOverrides = {}) =>
  specFor({ kind: 'custom', recipe: undefined, customRunSeconds: 600, privateGrading: false, taskset: 'custom', ...overrides });

type Item<K extends TimelineItem['kind']> = Extract<TimelineItem, { kind: K }>;

export const itemsOf = <K extends TimelineItem['kind']>(tl: Timeline, kind: K) => tl.items.filter((i): i is Item<K> => i.kind === kind);
export const rlEvents = (tl: Timeline) => itemsOf(tl, 'rl_event');
export const events = (tl: Timeline): SimRLEvent[] => rlEvents(tl).map((i) => i.event);
export const lifecycle = (tl: Timeline, type: string) => itemsOf(tl, 'lifecycle').filter((i) => i.eventType === type);
export const statuses = (tl: Timeline): WorkloadStatus[] => itemsOf(tl, 'status').map((i) => i.status);
export const statusAt = (tl: Timeline, status: WorkloadStatus, nth = 0) => itemsOf(tl, 'status').filter((i) => i.status === status)[nth]?.atMs;

/** The last receipt item per attempt_id: what a reader sees once everything is materialised. */
export function latestReceipts(tl: Timeline): SimReceipt[] {
  const byId = new Map<string, SimReceipt>();
  for (const r of itemsOf(tl, 'receipt')) byId.set(r.receipt.attempt_id, r.receipt);
  return [...byId.values()];
}

/** passed / (passed + failed) of one phase's completed events. */
export function passRate(tl: Timeline, phase: SimRLEvent['phase']): number {
  const done = events(tl).filter((e) => e.phase === phase && e.kind === 'task_completed' && e.outcome !== 'error');
  return done.filter((e) => e.outcome === 'passed').length / done.length;
}

/** The part of tap's Test that shared checks use. */
export interface Asserts {
  ok(value: unknown, message: string): unknown;
  equal(found: unknown, wanted: unknown, message: string): unknown;
  same(found: unknown, wanted: unknown, message: string): unknown;
}

/** Items sorted by time, the first at creation, all within [created, end] when the run ended. */
export function checkOrdered(t: Asserts, tl: Timeline, spec: SimSpec) {
  let sorted = true;
  for (let i = 1; i < tl.items.length; i++) if (tl.items[i].atMs < tl.items[i - 1].atMs) sorted = false;
  t.ok(sorted, 'items are sorted by time');
  t.equal(tl.items[0].atMs, spec.createdAtMs, 'the first item is at creation');
  if (tl.endAtMs !== null) t.ok(tl.items.every((i) => i.atMs >= spec.createdAtMs && i.atMs <= tl.endAtMs!), 'every item within [created, end]');
}
