/**
 * The job simulator's inputs and outputs. The simulator is a pure function of (spec,
 * interventions, t): no I/O, no clock, no randomness other than what the seed derives.
 */

export const WORKLOAD_STATUSES = [
  'accepted', 'planning', 'reserving', 'provisioning', 'running', 'recovering',
  'freezing', 'frozen', 'completed', 'failed', 'cancelled',
] as const;
export type WorkloadStatus = (typeof WORKLOAD_STATUSES)[number];
const TERMINAL_STATUSES: readonly WorkloadStatus[] = ['completed', 'failed', 'cancelled'];
export const isTerminal = (s: string) => (TERMINAL_STATUSES as readonly string[]).includes(s);

export type RunMode = 'evaluate' | 'train';
export type RLPhase = 'baseline' | 'training' | 'evaluation';

/** The catalog's per-recipe simulation parameters (catalog/recipes.json `simulation`). */
export interface RecipeSimulation {
  /** Mean pass probability of the base model on held-out tasks. */
  base_pass_rate: number;
  /** Mean pass probability after the recipe's full default training schedule. */
  trained_pass_rate: number;
  /** Attempts per GRPO step (one group of replies). */
  group_size: number;
  /** Held-out attempts that run at once during an evaluation phase. */
  eval_concurrency: number;
  /** Mean virtual seconds of one task attempt. */
  seconds_per_attempt: number;
  /** Mean virtual seconds of one training step (its group of attempts plus the update). */
  seconds_per_training_step: number;
  planning_seconds: number;
  reserving_seconds: number;
  provisioning_seconds: number;
  export_seconds: number;
  /** Share of attempts whose outcome is `error` (unscored); a held-out attempt that errs is retried. */
  error_rate: number;
  /**
   * Share of errored held-out attempts that are not retried, leaving their task unscored in that
   * phase (absent: 0). The lever that makes a comparison different_attempt_counts or different_tasks.
   */
  unrecoverable_error_rate?: number;
  /** Share of private grading receipts that end as `infrastructure_failure`. */
  infrastructure_failure_rate: number;
}

/** Everything the simulator needs, fixed at submit time and stored with the workload. */
export interface SimSpec {
  version: 1;
  /** recipe: the simulator produces task events; custom: lifecycle only, events are ingested. */
  kind: 'recipe' | 'custom';
  /** Namespace of deterministic event ids (the SDK emitter uses NODUS_WORKLOAD_ID). */
  workloadId: string;
  stageId: string;
  mode: RunMode;
  /** Model label, e.g. Qwen/Qwen3-0.6B (results.json, adapter_config.json). */
  model: string;
  /** Set for managed recipe runs. */
  recipe?: { id: string; version: string };
  seed: number;
  createdAtMs: number;
  /** Held-out tasks of each evaluation phase. */
  evaluationTasks: number;
  /** 0 in evaluate mode. */
  trainingSteps: number;
  includeTraces: boolean;
  /** Decides the shape of generated task text, e.g. `reasoning-gym/leg_counting`. */
  taskset: string;
  simulation: RecipeSimulation;
  /** Price of the compute held from provisioning to the end. */
  usdPerHour: number;
  /** One grading receipt per final-evaluation attempt when true. */
  privateGrading: boolean;
  /** Custom runs: virtual seconds of running time before completing. */
  customRunSeconds?: number;
}

/** What a test or the SDK did to a workload, recorded with the virtual time it happened. */
export type Intervention =
  | { kind: 'cancel'; atMs: number }
  | { kind: 'fail'; atMs: number; reason: string }
  | { kind: 'freeze'; atMs: number }
  | { kind: 'resume'; atMs: number }
  | { kind: 'recover'; atMs: number; replayLast: number };

/** An RLEvent as the contract spells it (wire field names). */
export interface SimRLEvent {
  event_id: string;
  phase: RLPhase;
  task_id: string;
  attempt: number;
  kind: 'task_started' | 'task_completed';
  outcome?: 'passed' | 'failed' | 'error';
  reward?: number;
  duration_ms?: number;
  message?: string;
  input?: string;
  output?: string;
  verifier?: string;
}

export interface SimReceipt {
  attempt_id: string;
  request_id: string;
  task_id: string;
  candidate_sha256: string;
  plan_sha256: string;
  manifest_sha256: string;
  state: 'pending' | 'completed' | 'infrastructure_failure';
  reward?: number;
  cleanup_complete: boolean;
  infrastructure_code?: 'execution_lost' | 'execution_cancelled' | 'execution_failed' | 'output_incomplete' | 'grading_unavailable';
}

/** One dated fact of a run. Items are returned sorted by atMs, ties in production order. */
export type TimelineItem =
  | { atMs: number; kind: 'status'; status: WorkloadStatus; generation: number }
  | { atMs: number; kind: 'lifecycle'; eventId: string; eventType: string; payload: Record<string, unknown> }
  | { atMs: number; kind: 'rl_event'; stageId: string; generation: number; event: SimRLEvent }
  /** Upsert of one receipt by attempt_id: first `pending`, later its final state. */
  | { atMs: number; kind: 'receipt'; receipt: SimReceipt }
  | { atMs: number; kind: 'log'; stageId: string; generation: number; line: string };

/** An intervention the simulator did not apply, with why (the routes may answer 409 with it). */
export interface IgnoredIntervention {
  intervention: Intervention;
  reason: 'before_creation' | 'terminal' | 'already_frozen' | 'not_frozen' | 'resume_pending' | 'recovering' | 'frozen';
}

export interface Timeline {
  /** Sorted by atMs; ties keep production order. All within [createdAtMs, endAtMs ?? +inf). */
  items: TimelineItem[];
  /** Time of the terminal status, or null while the run can still go on (or stays frozen). */
  endAtMs: number | null;
  finalStatus: WorkloadStatus | null;
  ignored: IgnoredIntervention[];
}

export type RunPhase = RLPhase | 'export';

/** The single stage as `StageRunSummary` spells it. */
export interface StageState {
  id: string;
  /** pending before it starts; then running/recovering/freezing/frozen; completed/failed/cancelled. */
  status: string;
  /** Finished task attempts (task_completed events) of the whole run. */
  completed_units: number;
  /** Task attempts of the uninterrupted plan: every held-out attempt (retries included) and every training reply; 0 for custom runs. */
  total_units: number;
  metric_step?: number;
  metric_total_steps?: number;
  last_loss?: number;
  /** Finished task attempts per second of running time. */
  metric_rate?: number;
}

export interface RunState {
  status: WorkloadStatus;
  generation: number;
  /** Time of the last item at or before t, at least createdAtMs. */
  updatedAtMs: number;
  /** usdPerHour times billable time up to t, 6 decimals. */
  spendUsd: number;
  /** usdPerHour while billable at t, else 0. */
  accruingRateUsdHour: number;
  /** The phase in progress, kept while frozen or recovering; null outside phases and once terminal. */
  phase: RunPhase | null;
  stage: StageState;
  terminal: boolean;
}

export interface SimOutput {
  name: string;
  stageId: string;
  content: Buffer;
}

/**
 * The uninterrupted run as a list of drafts: timeline items at times relative to createdAtMs,
 * before interventions place them (shift, cut, generation). Status drafts become a status item
 * plus its `workload.status` event, and every RL event draft also becomes its log line, when
 * placed; so those pairs cannot disagree.
 */
export type Draft =
  | { at: number; kind: 'status'; status: WorkloadStatus }
  | { at: number; kind: 'lifecycle'; eventType: string; payload: Record<string, unknown> }
  | { at: number; kind: 'rl_event'; event: SimRLEvent }
  | { at: number; kind: 'receipt'; receipt: SimReceipt }
  | { at: number; kind: 'log'; text: string };

export type Settlement =
  | { state: 'completed'; reward: number }
  | { state: 'infrastructure_failure'; code: NonNullable<SimReceipt['infrastructure_code']> };

/** Generations count from 1: the logs route takes `generation` as a positive integer. */
export const FIRST_GENERATION = 1;
