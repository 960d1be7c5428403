import t from '../helpers/tap.js';
import { RLEvent, RL_EVENT_MAX_ENCODED_BYTES, RLEventRow, RLGradingReceipt, rlEventEncodedBytes } from '../../openapi/rl-evidence.js';
import { RLMetadata, RLRecipeRequest, RLRunRequest } from '../../openapi/rl-recipes.js';
import { refusedAt } from '../helpers/zod-verdict.js';

const hex = (char: string) => char.repeat(64);

t.test('RLRecipeRequest: closed, everything optional, bounds as the contract', async (t) => {
  t.same(RLRecipeRequest.parse({}), {}, '{} is a valid preview body, and no defaults are invented');
  const full = {
    recipe_id: 'reasoning-gym-leg-counting',
    recipe_version: '1.0.0',
    mode: 'train',
    evaluation_tasks: 64,
    training_steps: 50,
    seed: 2147483647,
    include_traces: true,
    max_cost_usd: 3.5,
  };
  t.same(refusedAt(RLRecipeRequest, full), []);
  t.same(refusedAt(RLRecipeRequest, { evaluation_tasks: 4, training_steps: 1, seed: 0 }), [], 'lower bounds');

  t.same(refusedAt(RLRecipeRequest, { surprise: 1 }), ['surprise'], 'unknown key');
  t.same(refusedAt(RLRecipeRequest, { review_token: hex('a') }), ['review_token'], 'preview takes no token');
  for (const key of Object.keys(full)) {
    t.same(refusedAt(RLRecipeRequest, { [key]: null }), [key], `explicit null ${key}`);
  }
  const outOfRange: Array<[string, unknown]> = [
    ['evaluation_tasks', 3],
    ['evaluation_tasks', 65],
    ['evaluation_tasks', 4.5],
    ['training_steps', 0],
    ['training_steps', 51],
    ['seed', -1],
    ['seed', 2147483648],
    ['mode', 'finetune'],
    ['include_traces', 'yes'],
  ];
  for (const [key, value] of outOfRange) {
    t.same(refusedAt(RLRecipeRequest, { [key]: value }), [key], `${key}=${value}`);
  }
});

t.test('RLRecipeRequest/RLRunRequest: recipe ids are catalog data, not an enum', async (t) => {
  t.same(refusedAt(RLRecipeRequest, { recipe_id: 'my-own-recipe', recipe_version: '2.0.0-rc1' }), []);
  t.same(refusedAt(RLRecipeRequest, { recipe_id: '' }), ['recipe_id'], 'empty');
  t.same(refusedAt(RLRecipeRequest, { recipe_version: 'v'.repeat(65) }), ['recipe_version'], 'over 64');
  t.same(refusedAt(RLRunRequest, { recipe_id: 'my-own-recipe', review_token: hex('0') }), []);
});

t.test('RLRunRequest: a 64 lower-case hex review_token is required', async (t) => {
  t.same(refusedAt(RLRunRequest, { review_token: 'a1'.repeat(32) }), []);
  t.same(refusedAt(RLRunRequest, {}), ['review_token'], 'missing');
  t.same(refusedAt(RLRunRequest, { review_token: null }), ['review_token'], 'null');
  t.same(refusedAt(RLRunRequest, { review_token: '' }), ['review_token'], 'empty');
  t.same(refusedAt(RLRunRequest, { review_token: hex('A') }), ['review_token'], 'upper case');
  t.same(refusedAt(RLRunRequest, { review_token: 'a'.repeat(63) }), ['review_token'], '63 characters');
  t.same(refusedAt(RLRunRequest, { review_token: 'g'.repeat(64) }), ['review_token'], 'not hex');
  t.same(refusedAt(RLRunRequest, { review_token: hex('a'), seed: 65.5, extra: 1 }), ['extra', 'seed']);
});

const started = { event_id: 'nre_1', phase: 'baseline', task_id: 'task-1', attempt: 1, kind: 'task_started' };
const completed = {
  ...started,
  kind: 'task_completed',
  outcome: 'passed',
  reward: 1,
  duration_ms: 812.5,
  message: 'ok\n\tline two\r\n',
  input: 'How many legs do 3 spiders have?',
  output: '24',
  verifier: 'exact match',
};

t.test('RLEvent: the two kinds', async (t) => {
  t.same(refusedAt(RLEvent, started), [], 'task_started');
  t.same(refusedAt(RLEvent, { ...started, message: 'begun' }), [], 'task_started with a message');
  t.same(refusedAt(RLEvent, completed), [], 'task_completed');
  t.same(refusedAt(RLEvent, { ...started, kind: 'task_completed', outcome: 'error' }), [], 'outcome alone');
  for (const extra of [{ outcome: 'passed' }, { reward: 0 }, { duration_ms: 1 }]) {
    t.same(refusedAt(RLEvent, { ...started, ...extra }), Object.keys(extra), `task_started with ${Object.keys(extra)}`);
  }
  const { outcome: _, ...noOutcome } = completed;
  t.same(refusedAt(RLEvent, noOutcome), ['outcome'], 'task_completed without outcome');
  t.same(refusedAt(RLEvent, { ...started, kind: 'task_failed' }), ['kind']);
  t.same(refusedAt(RLEvent, { ...completed, outcome: 'skipped' }), ['outcome']);
  t.same(refusedAt(RLEvent, { ...started, note: 'x' }), ['note'], 'closed');
  t.same(refusedAt(RLEvent, { ...completed, message: null }), ['message'], 'null is not absent');
});

t.test('RLEvent: numbers', async (t) => {
  t.same(refusedAt(RLEvent, { ...started, attempt: 0 }), ['attempt']);
  t.same(refusedAt(RLEvent, { ...started, attempt: 1_000_001 }), ['attempt']);
  t.same(refusedAt(RLEvent, { ...started, attempt: 1_000_000 }), []);
  t.same(refusedAt(RLEvent, { ...started, attempt: 1.5 }), ['attempt']);
  for (const reward of [0, -1, -0.25, 7.5]) t.same(refusedAt(RLEvent, { ...completed, reward }), [], `reward ${reward}`);
  for (const reward of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, '1', true]) {
    t.same(refusedAt(RLEvent, { ...completed, reward }), ['reward'], `reward ${String(reward)}`);
  }
  t.same(refusedAt(RLEvent, { ...completed, duration_ms: 0 }), []);
  for (const duration_ms of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
    t.same(refusedAt(RLEvent, { ...completed, duration_ms }), ['duration_ms'], `duration_ms ${duration_ms}`);
  }
});

t.test('RLEvent: identities are 1-128 UTF-8 bytes, trimmed, free of control characters', async (t) => {
  t.same(refusedAt(RLEvent, { ...started, task_id: 't'.repeat(128) }), []);
  t.same(refusedAt(RLEvent, { ...started, task_id: 't'.repeat(129) }), ['task_id'], '129 characters');
  t.same(refusedAt(RLEvent, { ...started, task_id: 'é'.repeat(65) }), ['task_id'], '130 bytes in 65 characters');
  t.same(refusedAt(RLEvent, { ...started, task_id: 'é'.repeat(64) }), [], '128 bytes');
  t.same(refusedAt(RLEvent, { ...started, task_id: 'tâche 1' }), [], 'inner space and non-ASCII');
  for (const task_id of ['', ' task', 'task ', '\ttask', 'ta\u0001sk', 'ta\nsk', 'ta\u007fsk', 'ta\u0085sk']) {
    t.same(refusedAt(RLEvent, { ...started, task_id }), ['task_id'], JSON.stringify(task_id));
  }
  t.same(refusedAt(RLEvent, { ...started, event_id: 'e\u0000' }), ['event_id']);
  t.same(refusedAt(RLEvent, { ...started, event_id: 'e'.repeat(129) }), ['event_id']);
});

t.test('RLEvent: text fields count UTF-8 bytes and allow only tab, CR and LF', async (t) => {
  const over = `${'é'.repeat(512)}a`;
  t.ok(over.length < 1024 && Buffer.byteLength(over) === 1025, 'the probe is 1025 bytes in 513 characters');
  t.same(refusedAt(RLEvent, { ...completed, message: over }), ['message']);
  t.same(refusedAt(RLEvent, { ...completed, message: 'é'.repeat(512) }), [], 'exactly 1024 bytes');
  t.same(refusedAt(RLEvent, { ...completed, message: 'm'.repeat(1025) }), ['message'], '1025 ASCII');
  const emoji = '\u{1F600}';
  t.same(refusedAt(RLEvent, { ...completed, input: emoji.repeat(1024) }), [], '4096 bytes of astral characters');
  t.same(refusedAt(RLEvent, { ...completed, input: `${emoji.repeat(1024)}x` }), ['input']);
  for (const field of ['output', 'verifier']) {
    t.same(refusedAt(RLEvent, { ...completed, [field]: 'v'.repeat(4097) }), [field], `${field} over 4096`);
  }
  t.same(refusedAt(RLEvent, { ...completed, message: 'bell\u0007' }), ['message'], 'BEL');
  t.same(refusedAt(RLEvent, { ...completed, verifier: 'esc\u001b[0m' }), ['verifier'], 'ESC');
  t.same(refusedAt(RLEvent, { ...completed, output: 'a\tb\r\nc' }), [], 'tab, CR, LF');
});

t.test('rlEventEncodedBytes measures the compact JSON encoding', async (t) => {
  const event = RLEvent.parse(completed);
  t.equal(rlEventEncodedBytes(event), Buffer.byteLength(JSON.stringify(completed)));
  t.equal(rlEventEncodedBytes(RLEvent.parse({ ...started, task_id: 'é' })), Buffer.byteLength(JSON.stringify({ ...started, task_id: 'é' })));
  t.equal(RL_EVENT_MAX_ENCODED_BYTES, 16384);
  // Every field within its limit, yet escaping doubles the quotes: why the limit is a separate check.
  const quotes = '"'.repeat(4096);
  const bulky = RLEvent.parse({ ...completed, input: quotes, output: quotes, verifier: quotes });
  t.ok(rlEventEncodedBytes(bulky) > RL_EVENT_MAX_ENCODED_BYTES);
});

t.test('RLEventRow: decimal id, date-time received_at, closed', async (t) => {
  const row = { id: '42', stage_id: 'main', generation: 0, received_at: '2026-11-30T12:00:00.000Z', event: started };
  t.same(refusedAt(RLEventRow, row), []);
  t.same(refusedAt(RLEventRow, { ...row, received_at: '2026-11-30T13:00:00+01:00' }), [], 'offset');
  t.same(refusedAt(RLEventRow, { ...row, id: 'r42' }), ['id']);
  t.same(refusedAt(RLEventRow, { ...row, received_at: '2026-11-30 12:00' }), ['received_at']);
  t.same(refusedAt(RLEventRow, { ...row, cursor: 'x' }), ['cursor']);
  t.same(refusedAt(RLEventRow, { ...row, event: { ...started, attempt: 0 } }), ['event.attempt']);
});

const rl = { schema_version: 1, environment_id: 'gsm8k', mode: 'train', model: 'Qwen/Qwen3-1.7B', planned_tasks: 64 };
const provenance = {
  id: 'reasoning-gym-leg-counting',
  version: '1.0.0',
  runtime_image: 'ghcr.io/nodus/rl-runtime:1.0.0',
  model_revision: 'c'.repeat(40),
  config_sha256: hex('1'),
  request_sha256: hex('2'),
  review_token: hex('3'),
};

t.test('RLMetadata: shape of the rl block', async (t) => {
  t.same(refusedAt(RLMetadata, rl), [], 'catalog id gsm8k');
  t.same(refusedAt(RLMetadata, { ...rl, environment_id: 'custom', mode: 'evaluate', model: 'my model' }), [], 'custom');
  t.same(refusedAt(RLMetadata, { ...rl, example_id: 'gsm8k-trained' }), []);
  const { schema_version: _, ...unversioned } = rl;
  t.same(refusedAt(RLMetadata, unversioned), ['schema_version'], 'schema_version is never defaulted');
  t.same(refusedAt(RLMetadata, { ...rl, schema_version: 2 }), ['schema_version']);
  t.same(refusedAt(RLMetadata, { ...rl, schema_version: '1' }), ['schema_version']);
  for (const environment_id of ['Bad_ID', '-leading', '', 'a'.repeat(65), 'has space']) {
    t.same(refusedAt(RLMetadata, { ...rl, environment_id }), ['environment_id'], environment_id);
  }
  t.same(refusedAt(RLMetadata, { ...rl, example_id: 'Example' }), ['example_id']);
  t.same(refusedAt(RLMetadata, { ...rl, environment_id: 'officeqa' }), ['mode'], 'officeqa is evaluate-only');
  t.same(refusedAt(RLMetadata, { ...rl, environment_id: 'officeqa', mode: 'evaluate' }), []);
  for (const planned_tasks of [0, 10001, 2.5]) {
    t.same(refusedAt(RLMetadata, { ...rl, planned_tasks }), ['planned_tasks'], `planned_tasks ${planned_tasks}`);
  }
  for (const model of ['', ' Qwen', 'Qwen\n', 'm'.repeat(257), 'é'.repeat(129)]) {
    t.same(refusedAt(RLMetadata, { ...rl, model }), ['model'], JSON.stringify(model.slice(0, 8)));
  }
  t.same(refusedAt(RLMetadata, { ...rl, seed: 1 }), ['seed'], 'closed');
});

t.test('RLMetadata.recipe: shape only; whether a submission may set it is for the route to decide', async (t) => {
  t.same(refusedAt(RLMetadata, { ...rl, recipe: provenance }), []);
  t.same(refusedAt(RLMetadata, { ...rl, recipe: null }), []);
  t.same(refusedAt(RLMetadata, { ...rl, recipe: { ...provenance, model_revision: 'c'.repeat(39) } }), ['recipe.model_revision']);
  t.same(refusedAt(RLMetadata, { ...rl, recipe: { ...provenance, id: 'Leg_Counting' } }), ['recipe.id']);
  t.same(refusedAt(RLMetadata, { ...rl, recipe: { ...provenance, runtime_image: 'i'.repeat(513) } }), ['recipe.runtime_image']);
  t.same(refusedAt(RLMetadata, { ...rl, recipe: { ...provenance, version: 'v'.repeat(65) } }), ['recipe.version']);
  t.same(refusedAt(RLMetadata, { ...rl, recipe: { ...provenance, signed: true } }), ['recipe.signed']);
  const { review_token: _, ...partial } = provenance;
  t.same(refusedAt(RLMetadata, { ...rl, recipe: partial }), ['recipe.review_token']);
});

t.test('RLGradingReceipt: reward only when completed, infrastructure_code only on failure', async (t) => {
  const receipt = {
    attempt_id: 'att_1',
    request_id: 'req_1',
    task_id: 'task-1',
    candidate_sha256: hex('a'),
    plan_sha256: hex('b'),
    manifest_sha256: hex('c'),
    state: 'pending',
    cleanup_complete: false,
  };
  t.same(refusedAt(RLGradingReceipt, receipt), []);
  t.same(refusedAt(RLGradingReceipt, { ...receipt, state: 'completed', reward: 0 }), []);
  t.same(refusedAt(RLGradingReceipt, { ...receipt, state: 'completed', reward: 1.5 }), ['reward']);
  t.same(refusedAt(RLGradingReceipt, { ...receipt, reward: 1 }), ['reward'], 'pending with a reward');
  const failed = { ...receipt, state: 'infrastructure_failure', infrastructure_code: 'execution_lost' };
  t.same(refusedAt(RLGradingReceipt, failed), []);
  t.same(refusedAt(RLGradingReceipt, { ...failed, state: 'completed' }), ['infrastructure_code']);
  t.same(refusedAt(RLGradingReceipt, { ...receipt, attempt_id: '' }), ['attempt_id']);
  t.same(refusedAt(RLGradingReceipt, { ...receipt, plan_sha256: hex('B') }), ['plan_sha256']);
});
