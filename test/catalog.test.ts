import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from 'tap';
import { DEFAULT_CATALOG_PATH, loadCatalog, parseCatalog } from '../server/catalog.js';
import { MAIN } from './helpers/cli.js';
import { startServer, tempDbPath } from './helpers/server.js';

const defaults = () => JSON.parse(readFileSync(DEFAULT_CATALOG_PATH(), 'utf8'));

t.test('the default catalog loads', async (t) => {
  const c = loadCatalog();
  t.ok(c.recipe('reasoning-gym-leg-counting', '1.0.0'));
  t.equal(c.recipe('reasoning-gym-leg-counting')?.version, '1.0.0', 'newest version when none is named');
  t.equal(c.recipe('reasoning-gym-leg-counting', '2.0.0'), undefined);
});

t.test('invalid catalogs are refused with the entry and field named', async (t) => {
  const broken: [string, (doc: any) => void, RegExp][] = [
    ['missing field', (d) => delete d.recipes[1].model, /recipes\[1\] \(gsm8k-grpo-lora\) model:/],
    ['wrong type', (d) => (d.recipes[0].defaults.seed = 'x'), /recipes\[0\] \(reasoning-gym-leg-counting\) defaults\.seed:/],
    ['unknown field', (d) => (d.recipes[2].colour = 'red'), /recipes\[2\] \(graph-coloring-grpo-lora\)/],
    ['default outside limits', (d) => (d.recipes[0].defaults.evaluation_tasks = 65), /recipes\[0\] \(reasoning-gym-leg-counting\) defaults\.evaluation_tasks/],
    ['limits beyond the contract', (d) => (d.recipes[0].limits.training_steps_max = 80), /limits\.training_steps/],
    ['unavailable without reason', (d) => delete d.recipes[3].unavailable_reason, /recipes\[3\] \(swe-smith-repair\) unavailable_reason/],
    ['duplicate', (d) => d.recipes.push(structuredClone(d.recipes[0])), /recipes\[4\] \(reasoning-gym-leg-counting\) version: 1\.0\.0 appears twice/],
    ['empty', (d) => (d.recipes = []), /recipes/],
    ['bad revision', (d) => (d.recipes[0].simulation.base_pass_rate = 2), /simulation\.base_pass_rate/],
  ];
  for (const [name, breakIt, message] of broken) {
    const doc = defaults();
    breakIt(doc);
    t.throws(() => parseCatalog(doc, 'test.json'), { name: 'CatalogError', message }, name);
  }
});

t.test('--catalog replaces the built-in recipes', async (t) => {
  const doc = defaults();
  doc.recipes = [{ ...doc.recipes[0], id: 'my-recipe', name: 'Mine' }];
  const file = join(dirname(tempDbPath(t)), 'catalog.json');
  writeFileSync(file, JSON.stringify(doc));
  const s = await startServer(t, { catalog: file });
  const ids = (await s.call('GET', '/v1/rl-recipes')).body.recipes.map((r: any) => r.id);
  t.same(ids, ['my-recipe']);
  const preview = await s.call('POST', '/v1/rl-runs/preview', { body: {} });
  t.equal(preview.status, 400, 'the contract default recipe is not in this catalog');
  t.equal(preview.body.error, 'unknown_recipe');
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
