/**
 * What a check found. `new` is information: the target sends a field the document does not know,
 * which no client that follows the document depends on. `unchecked` is an operation whose answer
 * could not be judged (too large, too slow, unreadable): neither drift nor a match. Every other
 * kind is drift.
 */
export type FindingKind = 'status' | 'content-type' | 'missing' | 'type' | 'enum' | 'format' | 'constraint' | 'new' | 'unchecked';

export interface Finding {
  /** The operationId of the document. */
  operation: string;
  /** A JSON pointer into the answer's body; `/` is the body itself. */
  pointer: string;
  kind: FindingKind;
  message: string;
  /** How many more items of the same array had this finding; it is reported once. */
  repeats?: number;
}

export const isDrift = (f: Finding) => f.kind !== 'new' && f.kind !== 'unchecked';

/** `previewRLRun /review_token: missing` */
export const findingLine = (f: Finding) => `${f.operation} ${f.pointer}: ${f.message}${f.repeats ? ` (and ${f.repeats} more like it)` : ''}`;

/**
 * One finding per kind of trouble: a field missing from every item of a list of 500 is one line,
 * at the first item's pointer, with the count of the others.
 */
export function collapse(findings: Finding[]): Finding[] {
  const kept = new Map<string, Finding>();
  for (const f of findings) {
    const key = [f.operation, f.kind, f.pointer.replace(/\/\d+(?=\/|$)/g, '/*'), f.message].join('\0');
    const seen = kept.get(key);
    if (seen) seen.repeats = (seen.repeats ?? 0) + 1;
    else kept.set(key, { ...f });
  }
  return [...kept.values()];
}
