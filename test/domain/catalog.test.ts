import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from '../helpers/tap.js';
import { nestsTooDeep } from '../../server/domain/json-text.js';
import { DEFAULT_CATALOG_PATH, DEFAULT_ENVIRONMENTS_PATH, loadCatalog, parseCatalog } from '../../server/domain/catalog/index.js';
import { MAIN } from '../helpers/cli.js';
import { startInProcess, tempDbPath } from '../helpers/server.js';

const defaults = () => JSON.parse(readFileSync(DEFAULT_CATALOG_PATH(), 'utf8'));
const defaultEnvironments = () => JSON.parse(readFileSync(DEFAULT_ENVIRONMENTS_PATH(), 'utf8'));

t.test('the default catalog loads', async (t) => {
  const c = loadCatalog();
  t.ok(c.recipe('reasoning-gym-leg-counting', '1.0.0'));
  t.equal(c.recipe('reasoning-gym-leg-counting')?.version, '1.0.0', 'newest version when none is named');
  t.equal(c.recipe('reasoning-gym-leg-counting', '2.0.0'), undefined);
  t.same(c.environments.map((e) => e.id), ['gsm8k', 'graph-coloring', 'swe-smith']);
  t.equal(c.example('gsm8k', 'gsm8k-trained')?.example.runtime_minutes, 60);
  t.equal(c.example('swe-smith', 'anything'), undefined, 'a listed-only environment has no runnable example');
});

t.test('the built-in files pass every check unchanged, so the server can take them as they are', async (t) => {
  const c = loadCatalog();
  const recipes = parseCatalog(defaults(), DEFAULT_CATALOG_PATH()).recipes!;
  const environments = parseCatalog(defaultEnvironments(), DEFAULT_ENVIRONMENTS_PATH()).environments!;
  t.equal(c.version, recipes.version);
  t.strictSame(c.recipes, recipes.recipes);
  t.equal(c.reviewedAt, environments.reviewedAt);
  t.strictSame(c.environments, environments.environments);
  for (const path of [DEFAULT_CATALOG_PATH(), DEFAULT_ENVIRONMENTS_PATH()]) {
    t.notOk(nestsTooDeep(readFileSync(path, 'utf8')), `${path} nests within the limit a --catalog file is held to`);
  }
});

t.test('invalid environment catalogs are refused with the entry and field named', async (t) => {
  const broken: [string, (doc: any) => void, RegExp][] = [
    ['launch without results', (d) => delete d.environments[0].launch.results, /environments\[0\] \(gsm8k\) launch\.results:/],
    ['example without id', (d) => delete d.environments[1].launch.examples[0].id, /environments\[1\] \(graph-coloring\) launch\.examples\.0\.id:/],
    ['empty publisher', (d) => (d.environments[2].publisher = ''), /environments\[2\] \(swe-smith\) publisher:/],
    ['unknown field', (d) => (d.environments[0].launch.colour = 'red'), /environments\[0\] \(gsm8k\) launch:/],
    ['example mode not offered', (d) => (d.environments[2].launch = { ...d.environments[0].launch }), /environments\[2\] \(swe-smith\) launch\.examples\.0\.mode: train is not one of/],
    ['result outside the folder', (d) => (d.environments[0].launch.results = ['../results.json']), /launch\.results\.0: must be a relative path/],
    ['result not an output name', (d) => (d.environments[0].launch.results = ['outputs/Results.JSON']), /launch\.results\.0: its file name/],
    ['two results, one name', (d) => (d.environments[0].launch.results = ['a/results.json', 'b/results.json']), /launch\.results\.1: another result file/],
    ['duplicate environment', (d) => d.environments.push(structuredClone(d.environments[0])), /environments\[3\] \(gsm8k\) id: appears twice/],
    ['duplicate example', (d) => d.environments[0].launch.examples.push(structuredClone(d.environments[0].launch.examples[0])), /launch\.examples\.1\.id: "gsm8k-trained" appears twice/],
    ['reserved id', (d) => (d.environments[2].id = 'custom'), /environments\[2\] \(custom\) id: "custom" is reserved/],
    ['too many tasks', (d) => (d.environments[0].launch.default_tasks = 10_001), /launch\.default_tasks/],
    ['recipe field without recipes', (d) => (d.catalog_version = 'x'), /catalog_version: belongs to the `recipes` section/],
    ['no section at all', (d) => delete d.environments, /a catalog file needs a `recipes` or an `environments` section/],
  ];
  for (const [name, breakIt, message] of broken) {
    const doc = defaultEnvironments();
    breakIt(doc);
    t.throws(() => parseCatalog(doc, 'test.json'), { name: 'CatalogError', message }, name);
  }
  t.throws(() => parseCatalog({ ...defaults(), catalog_version: undefined }, 'x.json'), { message: /catalog_version: is required with `recipes`/ });
  const both = { ...defaults(), ...defaultEnvironments() };
  t.same(Object.keys(parseCatalog(both, 'both.json')).sort(), ['environments', 'recipes'], 'one file may carry both sections');
});

t.test('invalid catalogs are refused with the entry and field named', async (t) => {
  const broken: [string, (doc: any) => void, RegExp][] = [
    ['missing field', (d) => delete d.recipes[1].model, /recipes\[1\] \(gsm8k-grpo-lora\) model:/],
    ['wrong type', (d) => (d.recipes[0].defaults.seed = 'x'), /recipes\[0\] \(reasoning-gym-leg-counting\) defaults\.seed:/],
    ['unknown field', (d) => (d.recipes[2].colour = 'red'), /recipes\[2\] \(graph-coloring-grpo-lora\)/],
    ['default outside limits', (d) => (d.recipes[0].defaults.evaluation_tasks = 65), /recipes\[0\] \(reasoning-gym-leg-counting\) defaults\.evaluation_tasks/],
    ['limits beyond the contract', (d) => (d.recipes[0].limits.training_steps_max = 80), /limits\.training_steps/],
    ['unavailable without reason', (d) => delete d.recipes[3].unavailable_reason, /recipes\[3\] \(swe-smith-repair\) unavailable_reason/],
    ['duplicate', (d) => d.recipes.push(structuredClone(d.recipes[0])), /recipes\[8\] \(reasoning-gym-leg-counting\) version: 1\.0\.0 appears twice/],
    ['empty', (d) => (d.recipes = []), /recipes/],
    ['bad revision', (d) => (d.recipes[0].simulation.base_pass_rate = 2), /simulation\.base_pass_rate/],
  ];
  for (const [name, breakIt, message] of broken) {
    const doc = defaults();
    breakIt(doc);
    t.throws(() => parseCatalog(doc, 'test.json'), { name: 'CatalogError', message }, name);
  }
});

t.test('--catalog replaces the built-in recipes (and keeps the built-in environments)', async (t) => {
  const doc = defaults();
  doc.recipes = [{ ...doc.recipes[0], id: 'my-recipe', name: 'Mine' }];
  const file = join(dirname(tempDbPath(t)), 'catalog.json');
  writeFileSync(file, JSON.stringify(doc));
  const s = await startInProcess(t, { catalog: file });
  const ids = (await s.call('GET', '/v1/rl-recipes')).body.recipes.map((r: any) => r.id);
  t.same(ids, ['my-recipe']);
  const preview = await s.call('POST', '/v1/rl-runs/preview', { body: {} });
  t.equal(preview.status, 400, 'the contract default recipe is not in this catalog');
  t.equal(preview.body.error, 'unknown_recipe');
  t.equal((await s.call('GET', '/v1/rl-environments')).body.environments.length, 3, 'a file without environments keeps the built-in ones');
});

t.test('the server refuses to start on an invalid catalog: exit 2, one line', async (t) => {
  const doc = defaults();
  delete doc.recipes[0].taskset;
  const file = join(dirname(tempDbPath(t)), 'bad.json');
  writeFileSync(file, JSON.stringify(doc));
  const r = spawnSync(process.execPath, [MAIN, '--port', '0', '--db', ':memory:', '--catalog', file], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent' } });
  t.equal(r.status, 2);
  t.match(r.stderr, /recipes\[0\] \(reasoning-gym-leg-counting\) taskset/);
  t.equal(r.stderr.trim().split('\n').length, 1);
  const missing = spawnSync(process.execPath, [MAIN, '--db', ':memory:', '--catalog', '/nonexistent.json'], { encoding: 'utf8' });
  t.equal(missing.status, 2);
  t.match(missing.stderr, /cannot read/);
});
