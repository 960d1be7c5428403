/**
 * The strict SDK's checks on `rl.events()` and `rl.grading_results()` replies
 * (as the Python SDK's `client.rl` parses them), re-implemented with Python's
 * notion of types: a boolean is not a number, an int is a number without a fraction, "null or"
 * admits JSON null and an absent key. Each function returns what the SDK would raise on, [] when
 * it would accept the reply. Deliberately independent of the zod schemas it checks.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const isNonEmptyString = (v: unknown) => typeof v === 'string' && v.length > 0;
const isNullOrString = (v: unknown) => v === undefined || v === null || typeof v === 'string';
const isNullOrFinite = (v: unknown) => v === undefined || v === null || (typeof v === 'number' && Number.isFinite(v));

class Checker {
  readonly problems: string[] = [];

  check(ok: boolean, where: string, what: string): void {
    if (!ok) this.problems.push(`${where}: ${what}`);
  }

  nonEmptyStrings(o: Json, where: string, keys: readonly string[]): void {
    for (const k of keys) this.check(isNonEmptyString(o[k]), `${where}.${k}`, 'must be a non-empty string');
  }

  intAtLeast(o: Json, where: string, key: string, min: number): void {
    this.check(isInt(o[key]) && (o[key] as number) >= min, `${where}.${key}`, `must be an int >= ${min}`);
  }

  bool(o: Json, where: string, key: string): void {
    this.check(typeof o[key] === 'boolean', `${where}.${key}`, 'must be a bool');
  }
}

function checkEvent(c: Checker, e: Json, where: string): void {
  c.nonEmptyStrings(e, where, ['event_id', 'phase', 'task_id', 'kind']);
  c.intAtLeast(e, where, 'attempt', 1);
  for (const k of ['outcome', 'message', 'input', 'output', 'verifier']) c.check(isNullOrString(e[k]), `${where}.${k}`, 'must be null or a string');
  for (const k of ['reward', 'duration_ms']) c.check(isNullOrFinite(e[k]), `${where}.${k}`, 'must be null or a finite number');
}

/** What `client.rl.events()` raises on, for one page. */
export function eventPageProblems(page: unknown): string[] {
  const c = new Checker();
  if (!isObject(page) || Object.keys(page).length === 0) return ['page: must be a non-empty object'];
  c.intAtLeast(page, 'page', 'schema_version', 1);
  c.check(typeof page.next_cursor === 'string', 'page.next_cursor', 'must be a string');
  c.bool(page, 'page', 'has_more');
  c.intAtLeast(page, 'page', 'dropped_events', 0);
  c.bool(page, 'page', 'truncated');
  if (!Array.isArray(page.events)) return [...c.problems, 'page.events: must be a list'];
  page.events.forEach((row, i) => {
    const where = `page.events[${i}]`;
    if (!isObject(row)) return c.check(false, where, 'must be an object');
    c.nonEmptyStrings(row, where, ['id', 'stage_id', 'received_at']);
    c.intAtLeast(row, where, 'generation', 0);
    if (!isObject(row.event)) return c.check(false, `${where}.event`, 'must be an object');
    checkEvent(c, row.event, `${where}.event`);
  });
  return c.problems;
}

/** What `client.rl.grading_results()` raises on. */
export function gradingResultsProblems(results: unknown): string[] {
  const c = new Checker();
  if (!isObject(results) || Object.keys(results).length === 0) return ['results: must be a non-empty object'];
  c.intAtLeast(results, 'results', 'schema_version', 1);
  c.intAtLeast(results, 'results', 'revision', 1);
  c.nonEmptyStrings(results, 'results', ['workload_id', 'plan_sha256', 'parent_status']);
  c.bool(results, 'results', 'grading_cleanup_complete');
  if (!Array.isArray(results.receipts)) return [...c.problems, 'results.receipts: must be a list'];
  results.receipts.forEach((r, i) => {
    const where = `results.receipts[${i}]`;
    if (!isObject(r)) return c.check(false, where, 'must be an object');
    c.nonEmptyStrings(r, where, ['attempt_id', 'request_id', 'task_id', 'candidate_sha256', 'plan_sha256', 'manifest_sha256', 'state']);
    c.check(isNullOrFinite(r.reward), `${where}.reward`, 'must be null or a finite number');
    c.bool(r, where, 'cleanup_complete');
    c.check(isNullOrString(r.infrastructure_code), `${where}.infrastructure_code`, 'must be null or a string');
  });
  return c.problems;
}
