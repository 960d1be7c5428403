/**
 * The SDK's checks on compute replies (`client.compute.list()`, `.iterate()`, `.group()`,
 * `.iterate_group()`), re-implemented: a page must be a dict whose `items` is a list of dicts and
 * whose `next_cursor` is null or a string; iterating, a cursor that comes with no items or comes
 * back again is an APIError, and `""` or null ends. A group page needs a `group` dict. Each
 * function returns what the SDK would raise on, [] when it accepts.
 */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function computePageProblems(page: unknown, needsGroup = false): string[] {
  if (!isObject(page)) return ['page: must be a dict'];
  const problems: string[] = [];
  if (!Array.isArray(page.items)) problems.push('page.items: must be a list');
  else page.items.forEach((item, i) => { if (!isObject(item)) problems.push(`page.items[${i}]: must be a dict`); });
  if (!(page.next_cursor === null || page.next_cursor === undefined || typeof page.next_cursor === 'string')) problems.push('page.next_cursor: must be null or a string');
  if (needsGroup && !isObject(page.group)) problems.push('page.group: must be a dict');
  return problems;
}

/** Every item, page by page, as the SDK's iterator walks them; throws where the SDK raises. */
export async function iterateAll(fetchPage: (cursor: string | undefined) => Promise<unknown>, needsGroup = false): Promise<Json[]> {
  const items: Json[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    const problems = computePageProblems(page, needsGroup);
    if (problems.length) throw new Error(`APIError: ${problems.join('; ')}`);
    const { items: pageItems, next_cursor: next } = page as { items: Json[]; next_cursor: string | null };
    items.push(...pageItems);
    if (next === null || next === undefined || next === '') return items;
    if (pageItems.length === 0) throw new Error('APIError: a cursor with an empty page');
    if (seen.has(next)) throw new Error('APIError: the same cursor came back');
    seen.add(next);
    cursor = next;
  }
}
