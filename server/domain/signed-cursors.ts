import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Tables } from './unit.js';
import type { SecretName } from '../../store/settings.js';

/** The server secret cursors are keyed by. */
export const CURSOR_SECRET: SecretName = 'cursor';
/** Log cursors have their own: an RL event cursor is not a log cursor, even for the same workload. */
export const LOG_CURSOR_SECRET: SecretName = 'log-cursor';

/**
 * The key one kind of cursor is signed with for a tenant: derived from the tenant's own cursor key,
 * which its snapshot carries, so a restored tenant (on this server or another) mints and accepts
 * the cursors the original did; the kind goes into the derivation, so an RL event cursor is still
 * no log cursor. A tenant older than these keys has none and keeps the server's secret.
 */
export function cursorSecret(tables: Tables, tenantId: string, kind: SecretName): Buffer {
  const key = tables.cached.cursorKey(tenantId);
  return key === null ? tables.settings.secret(kind) : createHmac('sha256', Buffer.from(key, 'hex')).update(kind).digest();
}

const MAC_CHARS = 22;

/** How one kind of cursor writes the position a page ended at, and what its MAC covers. */
export interface CursorFormat<P> {
  prefix: string;
  /** Longer texts are no cursor of this kind, whatever they hold. */
  maxChars?: number;
  write(position: P): string;
  /** The position a written one stands for; undefined when the text is not one `write` could make. */
  read(written: string): P | undefined;
  /** The text the MAC is computed over: what the cursor is bound to (`binding`) and its position. */
  signed(binding: string, written: string, position: P): string;
}

/**
 * Page cursors `<prefix>.<position>.<mac>`: opaque to clients, minted by the server. The MAC binds
 * the position to what is paged (a workload, a listing and its filters), so a cursor used
 * elsewhere, or edited, is refused instead of silently paging the wrong rows.
 */
export function signedCursors<P>(format: CursorFormat<P>) {
  const mac = (secret: Buffer, binding: string, written: string, position: P) =>
    createHmac('sha256', secret).update(format.signed(binding, written, position)).digest('base64url').slice(0, MAC_CHARS);
  return {
    mint(secret: Buffer, binding: string, position: P): string {
      const written = format.write(position);
      return `${format.prefix}.${written}.${mac(secret, binding, written, position)}`;
    },
    /** The position of a cursor minted with `secret` for `binding`; undefined for any other text. */
    read(secret: Buffer, binding: string, cursor: string): P | undefined {
      if (format.maxChars !== undefined && cursor.length > format.maxChars) return undefined;
      const parts = cursor.split('.');
      if (parts.length !== 3 || parts[0] !== format.prefix) return undefined;
      const position = format.read(parts[1]);
      if (position === undefined) return undefined;
      const expected = Buffer.from(mac(secret, binding, parts[1], position));
      const given = Buffer.from(parts[2]);
      return given.length === expected.length && timingSafeEqual(given, expected) ? position : undefined;
    },
  };
}
