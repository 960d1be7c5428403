/** One failing field as the route validators report it (zod issues map onto it too). */
export interface ValidationItem {
  keyword: string;
  instancePath: string;
  message?: string;
  params?: { keys?: string[] };
}

/** "body.evaluation_tasks: Too big: expected number to be <=64", one clause per failing field. */
export function describeValidation(context: string, items: ValidationItem[]): { path: string; message: string } {
  const clauses = items.map((item) => {
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
