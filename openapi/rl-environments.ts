import { z } from 'zod';
import { runMode } from './primitives.js';
import { built, lazy } from './lazy.js';

/**
 * The RL environment catalog. Entries are open objects: real payloads carry keys the contract does
 * not list (`readiness`, `requirements`), and they must survive validation and serialisation.
 */


export const RLEnvironmentExample = lazy(() => z
  .looseObject({
    id: z.string().describe('the {example} path segment of the example routes'),
    dataset: z.string(),
    name: z.string(),
    mode: built(runMode).optional().describe('evaluate when absent'),
    summary: z.string().optional(),
    command: z.string().describe('shell text; the server runs it with sh -c'),
    baseline_pass_rate: z.number().optional().describe('a fraction, not a percentage'),
    trained_pass_rate: z.number().optional(),
    measured_change_pp: z.number().optional(),
    runtime_minutes: z.int().optional(),
  })
  .meta({ id: 'RLEnvironmentExample' }));
export type RLEnvironmentExample = z.infer<typeof RLEnvironmentExample>;

export const RLEnvironmentLaunch = lazy(() => z
  .looseObject({
    image: z.string(),
    model: z.string(),
    peak_memory_gb: z.number().optional().describe('GPU memory floor for example runs'),
    default_tasks: z.int().min(1),
    measured_on: z.string().optional(),
    note: z.string().optional(),
    results: z.array(z.string()).optional().describe('files each example publishes as outputs'),
    examples: z.array(built(RLEnvironmentExample)),
  })
  .meta({ id: 'RLEnvironmentLaunch' }));
export type RLEnvironmentLaunch = z.infer<typeof RLEnvironmentLaunch>;

export const RLEnvironment = lazy(() => z
  .looseObject({
    id: z.string(),
    name: z.string(),
    publisher: z.string(),
    summary: z.string(),
    category: z.string(),
    source_url: z.string(),
    code_license: z.string().optional(),
    data_license: z.string().optional(),
    reward_type: z.string().optional(),
    reward_description: z.string().optional(),
    modes: z.array(built(runMode)),
    launch: built(RLEnvironmentLaunch).optional().describe('absent when nothing in the environment is runnable'),
  })
  .meta({ id: 'RLEnvironment' }));
export type RLEnvironment = z.infer<typeof RLEnvironment>;

/** GET /v1/rl-environments. */
export const RLEnvironmentList = lazy(() => z.object({ schema_version: z.int(), reviewed_at: z.string().optional(), environments: z.array(built(RLEnvironment)) }));

/** POST /v1/rl-environments/{environment}/examples/{example}/runs; the body may be omitted. */
export const RLExampleRunRequest = lazy(() => z.strictObject({ name: z.string().max(120).optional().describe('default: the environment\'s and the example\'s names') }));
