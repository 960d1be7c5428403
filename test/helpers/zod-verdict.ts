import type { z } from 'zod';

/**
 * Where a zod schema refuses a value: the distinct paths of its issues (`a.b.0`, `''` for the value
 * itself), with each unknown key as its own path. `[]` means the value is accepted.
 */
export function refusedAt(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  const paths = result.error.issues.flatMap((issue) => {
    const at = issue.path.map(String);
    return issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...at, key].join('.')) : [at.join('.')];
  });
  return [...new Set(paths)].sort();
}
