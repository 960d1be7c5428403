import { z } from 'zod';
import { built, lazy, once } from '../../../openapi/lazy.js';
import { runMode } from '../../../openapi/primitives.js';
import { RLRecipeRequest } from '../../../openapi/rl-recipes.js';
import type { SimSpec } from '../../simulator/types.js';
import { Simulation } from '../catalog/index.js';
import { MAX_CUSTOM_RUN_SECONDS } from './custom-runs.js';

const request = once(() => built(RLRecipeRequest).shape);

/**
 * A stored simulation spec, as the launches make it (rl-runs.ts `specFor`, custom-runs.ts
 * `customSpec`): the request's own bounds on tasks, steps and seed, a catalog recipe's simulation,
 * and what a custom run fixes. A spec read back from anywhere but this server (a snapshot) is
 * held to it, so the simulator only ever runs what a launch could have stored.
 */
export const StoredSimSpec = lazy(() => z
  .strictObject({
    version: z.literal(1),
    kind: z.enum(['recipe', 'custom']),
    workloadId: z.string().min(1),
    stageId: z.string(),
    mode: built(runMode),
    model: z.string().min(1),
    recipe: z.strictObject({ id: request().recipe_id.unwrap(), version: request().recipe_version.unwrap() }).optional(),
    seed: request().seed.unwrap(),
    createdAtMs: z.int(),
    evaluationTasks: z.int().min(0),
    trainingSteps: z.int().min(0),
    includeTraces: z.boolean(),
    taskset: z.string().min(1),
    simulation: built(Simulation),
    usdPerHour: z.number().positive().max(1e6),
    privateGrading: z.boolean(),
    customRunSeconds: z.number().positive().max(MAX_CUSTOM_RUN_SECONDS).optional(),
  })
  .superRefine((spec, ctx) => {
    const refuse = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (spec.kind === 'custom') {
      if (spec.customRunSeconds === undefined) refuse('customRunSeconds', 'a custom run has a run length');
      if (spec.recipe !== undefined) refuse('recipe', 'only a recipe run names a recipe');
      if (spec.evaluationTasks !== 0 || spec.trainingSteps !== 0) refuse('evaluationTasks', 'a custom run has no simulated tasks');
      return;
    }
    if (spec.recipe === undefined) refuse('recipe', 'a recipe run names its recipe');
    if (spec.customRunSeconds !== undefined) refuse('customRunSeconds', 'only a custom run has a run length');
    const tasks = request().evaluation_tasks.safeParse(spec.evaluationTasks);
    if (!tasks.success) refuse('evaluationTasks', tasks.error.issues[0].message);
    const steps = spec.mode === 'train' ? request().training_steps.safeParse(spec.trainingSteps) : { success: spec.trainingSteps === 0 };
    if (!steps.success) refuse('trainingSteps', spec.mode === 'train' ? 'is outside the request\'s bounds' : 'is 0 in evaluate mode');
  }) satisfies z.ZodType<SimSpec>);
