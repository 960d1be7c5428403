import type { Finding } from './findings.js';
import { SchemaChecker, escapePointer } from './schema.js';

type Json = Record<string, unknown>;

const object = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

/** One operation of the document, found by its operationId. */
export interface Operation {
  id: string;
  method: string;
  /** The path template, `/v1/workloads/{id}`. */
  path: string;
  /** The statuses the operation lists; `default` is not one: an unlisted status is drift. */
  statuses: string[];
  /** Per listed status, the media types its answer may have (none for an empty answer). */
  media: Record<string, string[]>;
}

/** What the target answered, the body parsed when it is JSON. */
export interface Answer {
  status: number;
  /** The media type without parameters, lower case; '' when absent. */
  mediaType: string;
  body: unknown;
}

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** The document's operations and the checks of an answer against them. */
export class Contract {
  private readonly operations = new Map<string, Operation>();
  private readonly checker: SchemaChecker;

  constructor(private readonly doc: Json) {
    this.checker = new SchemaChecker(doc);
    for (const [path, item] of Object.entries(object(doc.paths))) {
      for (const method of HTTP_METHODS) {
        const op = object(object(item)[method]);
        if (typeof op.operationId !== 'string') continue;
        const responses = Object.entries(object(op.responses)).filter(([s]) => s !== 'default');
        const media = Object.fromEntries(responses.map(([s, r]) => [s, Object.keys(object(object(r).content))]));
        this.operations.set(op.operationId, { id: op.operationId, method: method.toUpperCase(), path, statuses: Object.keys(media), media });
      }
    }
  }

  get version(): string {
    return String(object(this.doc.info).version ?? '');
  }

  operation(id: string): Operation | undefined {
    return this.operations.get(id);
  }

  /** Every finding for this answer: its status, its media type, then its body against the status's schema. */
  check(op: Operation, answer: Answer): Finding[] {
    const status = String(answer.status);
    if (!op.statuses.includes(status)) {
      return [{ operation: op.id, pointer: '/', kind: 'status', message: `status ${status} is not one the document lists (${op.statuses.join(', ')})` }];
    }
    const base = `/paths/${escapePointer(op.path)}/${op.method.toLowerCase()}/responses/${status}`;
    const media = op.media[status];
    if (media.length === 0) return [];
    if (!media.includes(answer.mediaType)) {
      return [{ operation: op.id, pointer: '/', kind: 'content-type', message: `${answer.mediaType || 'no content type'} where the document says ${media.join(' or ')}` }];
    }
    if (answer.mediaType !== 'application/json') return [];
    return this.checker
      .check(`${base}/content/${escapePointer(answer.mediaType)}/schema`, answer.body)
      .map((f) => ({ operation: op.id, ...f }));
  }
}
