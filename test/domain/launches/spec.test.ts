import t from '../../helpers/tap.js';
import { built } from '../../../openapi/lazy.js';
import { StoredSimSpec } from '../../../server/domain/launches/spec.js';
import { customSpec, evaluateSpec, specFor } from '../../simulator/fixtures.js';

/*
 * A spec read back from a snapshot is held to what a launch could have stored: each refusal names
 * the field that breaks the rule, so PUT /_mock/snapshot can say which row and field to fix.
 */

/** A custom run as custom-runs.ts stores one: no simulated tasks or steps. */
const custom = (overrides: Parameters<typeof customSpec>[0] = {}) => customSpec({ mode: 'evaluate', evaluationTasks: 0, trainingSteps: 0, ...overrides });

/** The paths and messages a spec is refused with; empty when it is taken. */
function refusals(spec: unknown): string[] {
  const parsed = built(StoredSimSpec).safeParse(spec);
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

t.test('what the launches store is taken', async (t) => {
  t.same(refusals(specFor()), [], 'a training run of a recipe');
  t.same(refusals(evaluateSpec()), [], 'an evaluation');
  t.same(refusals(custom()), [], 'a custom run');
});

t.test('a custom run has a run length, no recipe and no simulated tasks', async (t) => {
  t.same(refusals(custom({ customRunSeconds: undefined })), ['customRunSeconds: a custom run has a run length']);
  t.same(refusals(custom({ recipe: { id: 'reasoning-gym-leg-counting', version: '1.0.0' } })), ['recipe: only a recipe run names a recipe']);
  t.same(refusals(custom({ evaluationTasks: 4 })), ['evaluationTasks: a custom run has no simulated tasks']);
});

t.test('a recipe run names its recipe, has no run length, and keeps the request\'s bounds', async (t) => {
  t.same(refusals(specFor({ recipe: undefined })), ['recipe: a recipe run names its recipe']);
  t.same(refusals(specFor({ customRunSeconds: 600 })), ['customRunSeconds: only a custom run has a run length']);
  t.match(refusals(specFor({ evaluationTasks: 65 })), [/^evaluationTasks: /], 'more tasks than a request may ask');
  t.same(refusals(specFor({ trainingSteps: 51 })), ['trainingSteps: is outside the request\'s bounds']);
  t.same(refusals(evaluateSpec({ trainingSteps: 3 })), ['trainingSteps: is 0 in evaluate mode']);
});
