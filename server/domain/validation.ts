/** One failing field as the route validators report it (zod issues map onto it too). */
export interface ValidationItem {
  keyword: string;
  instancePath: string;
  message?: string;
  params?: { keys?: string[]; errors?: UnionIssue[][] };
}

/** One issue of a branch of a zod union, as the union's issue holds them. */
interface UnionIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  errors?: UnionIssue[][];
}

/**
 * A union that refused a value says only "Invalid input" (or what its schema says it takes); when a
 * branch got into the value, the one that got furthest (its deepest issue) says why, as if it were
 * the only one.
 */
function unionReason(item: ValidationItem): ValidationItem {
  const branches = item.params?.errors;
  if (item.keyword !== 'invalid_union' || !branches?.length) return item;
  const depth = (issues: UnionIssue[]) => Math.max(-1, ...issues.map((i) => i.path.length));
  const furthest = branches.reduce((best, branch) => (depth(branch) > depth(best) ? branch : best));
  // No branch got into the value: the union's own message says what it takes.
  if (depth(furthest) < 1) return item;
  const issue = furthest.find((i) => i.path.length === depth(furthest))!;
  const instancePath = [item.instancePath.replace(/\/$/, ''), ...issue.path.map(String)].join('/');
  return unionReason({ keyword: issue.code, instancePath, message: issue.message, params: issue });
}

/** "body.evaluation_tasks: Too big: expected number to be <=64", one clause per failing field. */
export function describeValidation(context: string, items: ValidationItem[]): { path: string; message: string } {
  const clauses = items.map(unionReason).map((item) => {
    const base = [context, ...item.instancePath.split('/').filter(Boolean)].join('.');
    if (item.keyword === 'unrecognized_keys' && item.params?.keys?.length) {
      return { path: `${base}.${item.params.keys[0]}`, text: `${item.params.keys.map((k) => `${base}.${k}`).join(', ')}: unknown field` };
    }
    const message = item.message?.startsWith('Invalid input: expected') && item.message.endsWith('received null')
      ? 'must not be null'
      : item.message ?? 'is invalid';
    return { path: base, text: `${base}: ${message}` };
  });
  return { path: clauses[0]?.path ?? context, message: clauses.map((c) => c.text).join('; ') };
}
