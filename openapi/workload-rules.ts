import { z } from 'zod';
import { DropEventsRequest, FailRequest, GradingPlanUpdate, RecoverRequest } from './mock.js';
import { runMode } from './primitives.js';
import { built, lazy } from './lazy.js';

/** Schemas of /_mock/workload-rules (docs/control-api.md, Workload rules). */

const TEN_YEARS_SECONDS = 10 * 365 * 24 * 3600;
const identifier = lazy(() => z.string().min(1).max(128));

export const WorkloadRuleMatch = lazy(() => z
  .strictObject({
    recipe_id: built(identifier).optional(),
    environment_id: built(identifier).optional(),
    mode: built(runMode).optional(),
    kind: z.enum(['recipe', 'custom', 'example']).optional().describe('a recipe launch, a POST /v1/workloads, or a catalog example run'),
    nth: z.int().min(1).max(1_000_000).optional()
      .describe('only the nth matching workload admitted after the rule was made (1-based); absent: every one'),
  })
  .meta({ id: 'MockWorkloadRuleMatch' }));

const TRIGGERS = ['phase', 'running_seconds', 'events', 'reads'] as const;

export const WorkloadRuleTrigger = lazy(() => z
  .strictObject({
    phase: z.enum(['baseline', 'training', 'evaluation']).optional().describe('when the phase begins'),
    step: z.int().min(1).max(1_000_000).optional().describe('with phase training: when this training step begins'),
    running_seconds: z.number().min(0).max(TEN_YEARS_SECONDS).optional().describe('virtual seconds after the workload first starts running'),
    events: z.int().min(1).max(1_000_000_000).optional().describe('once the workload has emitted this many task events'),
    reads: z.int().min(1).max(1_000_000).optional().describe("just after the client's nth read of the workload's rl-events"),
  })
  .superRefine((at, ctx) => {
    const given = TRIGGERS.filter((name) => at[name] !== undefined);
    if (given.length !== 1) ctx.addIssue({ code: 'custom', message: `names exactly one of ${TRIGGERS.join(', ')} (got ${given.length ? given.join(', ') : 'none'})` });
    if (at.step !== undefined && at.phase !== 'training') ctx.addIssue({ code: 'custom', path: ['step'], message: 'only allowed with phase training' });
  })
  .describe('when the actions apply: one of phase (and step), running_seconds, events, reads')
  .meta({ id: 'MockWorkloadRuleTrigger' }));

const RuleActionItem = lazy(() => z
  .discriminatedUnion('type', [
    built(RecoverRequest).extend({ type: z.literal('recover') }),
    built(DropEventsRequest).extend({ type: z.literal('drop_events') }),
    built(FailRequest).extend({ type: z.literal('fail') }),
    built(GradingPlanUpdate).safeExtend({ type: z.literal('grading_plan') }),
  ])
  .meta({ id: 'MockWorkloadRuleActionItem' }));

export const WorkloadRuleAction = lazy(() => z
  .union([built(RuleActionItem), z.array(built(RuleActionItem)).min(1).max(16)])
  .describe('one action, or a list applied together in order')
  .meta({ id: 'MockWorkloadRuleAction' }));

export const WorkloadRule = lazy(() => z
  .strictObject({
    match: built(WorkloadRuleMatch).default({}).describe('every workload when absent'),
    at: built(WorkloadRuleTrigger),
    action: built(WorkloadRuleAction),
  })
  .meta({ id: 'MockNewWorkloadRule' }));

const BindingState = lazy(() => z.enum(['pending', 'applied', 'skipped']));

export const WorkloadRuleView = lazy(() => z
  .object({
    id: z.string(),
    match: built(WorkloadRuleMatch),
    at: built(WorkloadRuleTrigger),
    action: built(WorkloadRuleAction),
    source: z.enum(['api', 'scenario']),
    created_at: z.string().describe('RFC 3339 virtual time'),
    matched: z.int().describe('matching workloads admitted since the rule was made'),
    bound: z.int().describe('workloads it was fixed into (each matching one, or the nth)'),
    pending: z.int(),
    applied: z.int(),
    skipped: z.int().describe('bindings whose trigger never came, or none of whose actions could apply'),
    workloads: z
      .array(z.object({
        workload_id: z.string(),
        state: built(BindingState),
        settled_at: z.string().nullable().describe('RFC 3339 virtual time it applied or was skipped'),
        note: z.string().nullable().describe('what could not apply, and why'),
      }))
      .describe('the first 100 workloads it bound'),
  })
  .meta({ id: 'MockWorkloadRule' }));

export const WorkloadRuleList = lazy(() => z.object({ rules: z.array(built(WorkloadRuleView)) }).meta({ id: 'MockWorkloadRuleList' }));

export const WorkloadRuleParams = lazy(() => z.object({ id: z.string().min(1).max(128) }));

export type WorkloadRuleInput = z.output<typeof WorkloadRule>;
export type RuleTrigger = z.output<typeof WorkloadRuleTrigger>;
export type RuleAction = z.output<typeof RuleActionItem>;
