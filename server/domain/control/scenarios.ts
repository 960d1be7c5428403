import { z } from 'zod';
import { BudgetUpdate, ClockAdvance, ClockUpdate, FaultRule, LeversUpdate, RecipeOverrideUpdate } from '../../../openapi/mock.js';
import { registerKey } from './tenants.js';
import { canonicalSha256 } from '../json-text.js';
import type { Catalog } from '../catalog/index.js';
import { API_KEY_PATTERN } from '../../config.js';
import { DomainError } from '../errors.js';
import { addFault } from './faults.js';
import { addWorkloadRule } from './workload-rules.js';
import { WorkloadRule } from '../../../openapi/workload-rules.js';
import { built, lazy } from '../../../openapi/lazy.js';
import { setLevers } from './levers.js';
import { setBudget, setRecipeOverride } from '../launches/admission.js';
import { readJsonFile } from '../json-file.js';
import type { DomainContext } from '../context.js';
import type { TenantUnit } from '../unit.js';

/** Per key, the same things the /_mock routes set, in the same shapes. */
const ScenarioEntry = lazy(() => z.strictObject({
  clock: built(ClockUpdate).extend({ advance_seconds: built(ClockAdvance).shape.seconds.optional() }).optional(),
  faults: z.array(built(FaultRule)).max(1000).optional(),
  workload_rules: z.array(built(WorkloadRule)).max(1000).optional(),
  recipes: z.record(z.string(), built(RecipeOverrideUpdate)).optional(),
  budget: built(BudgetUpdate).optional(),
  levers: built(LeversUpdate).optional(),
}));
type ScenarioEntry = z.output<typeof ScenarioEntry>;

const ScenarioFile = lazy(() => z.strictObject({
  description: z.string().optional(),
  keys: z.record(z.string().regex(API_KEY_PATTERN, 'an API key is printable ASCII without spaces'), built(ScenarioEntry)),
}));

export interface Scenario {
  source: string;
  keys: Record<string, ScenarioEntry>;
}

export class ScenarioError extends Error {
  override name = 'ScenarioError';
}

/** `keys["nk_test_flaky"].faults[0].action.status`: map keys quoted, list indexes bracketed. */
function entryPath(path: readonly PropertyKey[]): string {
  let out = '';
  path.forEach((part, i) => {
    const mapKey = (i === 1 && path[0] === 'keys') || (i === 3 && path[2] === 'recipes');
    if (typeof part === 'number') out += `[${part}]`;
    else if (mapKey) out += `[${JSON.stringify(part)}]`;
    else out += `${out ? '.' : ''}${String(part)}`;
  });
  return out || '(top level)';
}

/** Reads and checks the whole file before anything is applied; errors name the entry and field. */
export function loadScenario(path: string, catalog: Catalog): Scenario {
  const parsed = ScenarioFile.safeParse(readJsonFile(path, (message) => new ScenarioError(message)));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ScenarioError(`${path}: ${entryPath(issue.path)}: ${issue.message}`);
  }
  for (const [key, entry] of Object.entries(parsed.data.keys)) {
    for (const recipeId of Object.keys(entry.recipes ?? {})) {
      if (!catalog.hasRecipeId(recipeId)) {
        throw new ScenarioError(`${path}: ${entryPath(['keys', key, 'recipes', recipeId])}: no such recipe in the catalog`);
      }
    }
  }
  return { source: path, keys: parsed.data.keys };
}

function applyEntry(unit: TenantUnit, entry: ScenarioEntry): void {
  const { tenantId } = unit;
  // A changed entry replaces the faults and rules an earlier version of it made; API-made ones stay.
  unit.tables.faults.clear(tenantId, 'scenario');
  for (const rule of entry.faults ?? []) addFault(unit, rule, 'scenario');
  unit.tables.workloadRules.clear(tenantId, unit.nowMs, 'scenario');
  for (const rule of entry.workload_rules ?? []) addWorkloadRule(unit, rule, 'scenario');
  for (const [recipeId, update] of Object.entries(entry.recipes ?? {})) setRecipeOverride(unit, recipeId, update);
  if (entry.budget) setBudget(unit, entry.budget);
  if (entry.levers) setLevers(unit, entry.levers);
  if (entry.clock) {
    unit.setClock(entry.clock.mode, entry.clock.scale);
    if (entry.clock.advance_seconds !== undefined) unit.advanceClock(entry.clock.advance_seconds);
  }
}

/**
 * Applies each key's entry to its tenant, all in one transaction. A tenant remembers the SHA-256 of
 * the entry it was given: a restart with the same entry applies nothing (faults keep their counts,
 * the clock its time), a changed entry is applied again. Reset forgets it, so the next start
 * applies the entry afresh. Answers the tenants it applied an entry to.
 */
export function applyScenario(deps: Pick<DomainContext, 'units' | 'config' | 'registerKey' | 'clock'>, scenario: Scenario): string[] {
  return deps.units.acrossTenants((atNow) => {
    const applied: string[] = [];
    const keyOfTenant = new Map<string, string>();
    for (const [key, entry] of Object.entries(scenario.keys)) {
      const where = `${scenario.source}: ${entryPath(['keys', key])}`;
      let tenantId: string;
      try {
        tenantId = registerKey(deps, key).id;
      } catch (err) {
        if (err instanceof DomainError) throw new ScenarioError(`${where}: ${err.message}`);
        throw err;
      }
      const other = keyOfTenant.get(tenantId);
      if (other !== undefined) throw new ScenarioError(`${where}: same tenant as ${entryPath(['keys', other])}; give each tenant one entry`);
      keyOfTenant.set(tenantId, key);
      const sha256 = canonicalSha256(entry);
      try {
        const changed = atNow(tenantId, (unit) => {
          if (unit.tables.scenarios.appliedSha256(tenantId) === sha256) return false;
          applyEntry(unit, entry);
          unit.tables.scenarios.recordApplied(tenantId, sha256, deps.clock.wallNow());
          return true;
        });
        if (changed) applied.push(tenantId);
      } catch (err) {
        // What the file asks may still not fit the tenant as it stands (a clock near its end).
        if (err instanceof DomainError) throw new ScenarioError(`${where}: ${err.message}`);
        throw err;
      }
    }
    return applied;
  });
}
