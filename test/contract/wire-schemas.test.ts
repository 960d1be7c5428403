import { readFileSync } from 'node:fs';
import t from '../helpers/tap.js';
import { z } from 'zod';
import * as assets from '../../openapi/assets.js';
import * as common from '../../openapi/common.js';
import * as compute from '../../openapi/compute.js';
import * as connections from '../../openapi/connections.js';
import { buildEverySchema, built } from '../../openapi/lazy.js';
import * as rlEnvironments from '../../openapi/rl-environments.js';
import * as rlEvidence from '../../openapi/rl-evidence.js';
import * as rlRecipes from '../../openapi/rl-recipes.js';
import * as secrets from '../../openapi/secrets.js';
import * as webhooks from '../../openapi/webhooks.js';
import * as workloadPayload from '../../openapi/workload-payload.js';
import * as workloads from '../../openapi/workloads.js';
import { CONTRACT_PATH } from '../helpers/contract.js';
import { compareComponent } from '../helpers/schema-shape.js';

type Json = Record<string, any>;

// The registry holds a wire schema once it is built (openapi/lazy.ts).
buildEverySchema();

const contract = (JSON.parse(readFileSync(CONTRACT_PATH, 'utf8')) as Json).components.schemas as Record<string, Json>;
const contractNames = Object.keys(contract).sort();

// Catalog enums are data in nodus-mock: the real document pins them to the one recipe it serves.
const relaxedEnums = new Set([
  'RLRecipeRequest.recipe_id',
  'RLRecipeRequest.recipe_version',
  'RLRunRequest.recipe_id',
  'RLRunRequest.recipe_version',
  'RLMetadata.environment_id',
]);

const wireModules = { rlRecipes, rlEvidence, rlEnvironments, workloadPayload, workloads, assets, webhooks, secrets, connections, compute };

/** Our components, generated the way the served document generates them, for one direction. */
const contractName = (id: string) => workloadPayload.COMPONENT_ALIASES[id] ?? id;
const ourComponents = (io: 'input' | 'output') =>
  Object.fromEntries(
    Object.entries(
      z.toJSONSchema(z.globalRegistry, {
        target: 'draft-2020-12',
        io,
        uri: (id) => `#/components/schemas/${contractName(id)}`,
      }).schemas as Record<string, Json>,
    ).map(([id, schema]) => [contractName(id), schema]),
  );

t.test('exactly the contract components are registered, each exported under its own name', async (t) => {
  t.ok(common.ErrorBody, 'Error comes from openapi/common.ts');
  t.same(Object.keys(ourComponents('output')).sort(), contractNames);

  const exported = new Map<string, string>();
  for (const [file, mod] of Object.entries(wireModules)) {
    for (const [name, value] of Object.entries(mod)) {
      if (!(value instanceof z.ZodType)) continue;
      const id = z.globalRegistry.get(built(value))?.id;
      if (id === undefined) continue;
      t.equal(contractName(id), name, `${file}.${name} is registered under its export name`);
      t.notOk(exported.has(name), `${name} is exported once (also in ${exported.get(name)})`);
      exported.set(name, file);
    }
  }
  t.same(
    contractNames.filter((name) => name !== 'Error' && !exported.has(name)),
    [],
    'every contract component but Error is exported by a wire module',
  );
});

for (const io of ['output', 'input'] as const) {
  t.test(`every component agrees with the contract (io: ${io})`, async (t) => {
    const ours = ourComponents(io);
    for (const name of contractNames) {
      t.same(compareComponent(name, contract, ours, { relaxedEnums }), [], name);
    }
  });
}

t.test('the comparer notices what it claims to compare', async (t) => {
  const ours = ourComponents('output');
  const edit = (components: Record<string, Json>, name: string, change: (schema: Json) => void) => {
    const copy = structuredClone(components);
    change(copy[name]!);
    return copy;
  };
  const onContract: Array<[string, (schema: Json) => void, RegExp]> = [
    ['RLEventRow', (s) => { s.properties.extra = { type: 'string' }; }, /^RLEventRow\.extra: missing$/],
    ['RLEventRow', (s) => { s.required.pop(); }, /^RLEventRow: required/],
    ['Workload', (s) => { s.additionalProperties = false; }, /^Workload: open, contract closed$/],
    ['RLEvent', (s) => { s.properties.phase.enum.pop(); }, /^RLEvent\.phase: values/],
    ['RLEvent', (s) => { s.properties.attempt.maximum = 10; }, /^RLEvent\.attempt: maximum/],
    ['RLEventPage', (s) => { s.properties.events.items.$ref = '#/components/schemas/RLEvent'; }, /^RLEventPage\.events\[\]: references/],
    ['RLSummary', (s) => { s.properties.phases.required.pop(); }, /^RLSummary\.phases: required/],
    ['UnitMetrics', (s) => { s.properties.p50_ms.type = 'number'; }, /^UnitMetrics\.p50_ms: type/],
  ];
  for (const [name, change, expected] of onContract) {
    const found = compareComponent(name, edit(contract, name, change), ours, { relaxedEnums });
    t.equal(found.length, 1, expected.source);
    t.match(found[0], expected);
  }

  const enumBack = edit(ours, 'RLMetadata', (s) => { s.properties.environment_id.enum = ['custom']; });
  t.same(compareComponent('RLMetadata', contract, enumBack, { relaxedEnums }), [
    'RLMetadata.environment_id: relaxed enum still present ["custom"]',
  ]);
});
