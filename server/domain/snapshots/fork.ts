import { createHmac } from 'node:crypto';
import type { SnapshotValues } from '../../../store/snapshot.js';
import { OWN_TENANT_ID } from '../../../store/tenants.js';
import { BASE62_DIGIT, DERIVED_ID_DIGITS, DERIVED_IDS, fromBase62, SERVER_IDS, toBase62, type DerivedIdKind, type ServerIdKind } from '../ids.js';

/** The kinds of SERVER_IDS by their number of digits, in the table's order. */
const BY_DIGITS = new Map<number, ServerIdKind[]>();
for (const kind of Object.keys(SERVER_IDS) as ServerIdKind[]) BY_DIGITS.set(SERVER_IDS[kind], [...BY_DIGITS.get(SERVER_IDS[kind]) ?? [], kind]);
/**
 * The ids the server holds unique across all its tenants (SERVER_IDS), as their generators write
 * them. Found by their shape wherever a document holds them (JSON columns, webhook bodies, journal
 * paths and bodies, receipts), not by column: a deleted fault's id lives on only in the journal.
 * Letters, digits, `_` or `-` around one make it part of some longer word, so no id. Each length
 * is two groups, the kind and the digits.
 */
const GLOBAL_ID = new RegExp(`(?<![0-9A-Za-z_-])(?:${[...BY_DIGITS].map(([digits, kinds]) => `(${kinds.join('|')})_(${BASE62_DIGIT}{${digits}})`).join('|')})(?![0-9A-Za-z_-])`, 'g');
const GLOBAL_ID_GROUPS = 2 * BY_DIGITS.size;
/** The ids derived from a workload's id (DERIVED_IDS), as a document mentions them. */
const DERIVED_ID = new RegExp(`(?<![0-9A-Za-z_])(${Object.keys(DERIVED_IDS).join('|')})_[0-9a-f]{${DERIVED_ID_DIGITS}}(?![0-9A-Za-z_-])`, 'g');
/** How far an ordinal is searched: above a run's checkpoints, freezes and billing hours. */
const MAX_ORDINAL = 10_000;
const ID_KINDS = [...Object.keys(SERVER_IDS), ...Object.keys(DERIVED_IDS)];
/** The kinds by their characters, last first: the kind whose last character is reached is whole. */
type KindEnds = Map<number, KindEnds | true>;
const KIND_ENDS: KindEnds = new Map();
for (const kind of ID_KINDS) {
  let node = KIND_ENDS;
  for (let i = kind.length - 1; i >= 0; i--) {
    const c = kind.charCodeAt(i);
    const next = node.get(c);
    // A shorter kind that ends this one is found wherever this one would be.
    if (i === 0 || next === true) {
      node.set(c, true);
      break;
    }
    if (next === undefined) node.set(c, (node = new Map()));
    else node = next;
  }
}
/**
 * Whether the text holds a kind and `_`, as every match of GLOBAL_ID or DERIVED_ID does: a text
 * without one holds no id. One test of it skips most of a document's texts (event ids, task ids,
 * log lines), where running both replacements on every text was most of a fork's time. Walked back
 * from each underscore: a regular expression of the kinds took three times as long over the long
 * texts of a document.
 */
function holdsIdPrefix(text: string): boolean {
  for (let at = text.indexOf('_'); at >= 0; at = text.indexOf('_', at + 1)) {
    let node: KindEnds | true | undefined = KIND_ENDS;
    for (let i = at - 1; i >= 0 && node !== undefined && node !== true; i--) node = node.get(text.charCodeAt(i));
    if (node === true) return true;
  }
  return false;
}
/** Base64 bytes: the tenant's files as they were uploaded, never the server's text. */
const BYTE_COLUMNS = new Set(['asset_contents.data']);
const BYTE_TABLES = new Set([...BYTE_COLUMNS].map((column) => column.split('.')[0]));
/**
 * Texts up to this long are kept with what the fork made of them: a row's workload id, stage,
 * phase or kind is most rows' too, and replacing in each anew was most of a fork's time.
 */
const MEMO_CHARS = 64;

/**
 * Each kind and length of id shifted by an offset of its own, keyed by the target tenant: a
 * bijection, so no two ids of the document meet; another tenant's copy is shifted by another
 * offset, so copies do not meet either but by chance: at most n² over half the range for n ids of
 * a kind, under 2^-64 for ten thousand ids of the shortest (16 digits). Adding rather than hashing
 * each id keeps their order, which lists sort by (workloads made in the same virtual millisecond,
 * by id): a copy lists its runs as the original does. The offset stays under half the range, so
 * workload ids (whose leading digits are a wall-clock time, far under half) never wrap around;
 * the other kinds are random throughout, and wrap as the bijection allows.
 */
function idShifter(targetTenantId: string) {
  const offsets = new Map<string, bigint>();
  const mapped = new Map<string, string>();
  return (id: string, kind: string, digits: string): string => {
    let out = mapped.get(id);
    if (out !== undefined) return out;
    const range = 62n ** BigInt(digits.length);
    let offset = offsets.get(`${kind}_${digits.length}`);
    if (offset === undefined) {
      const mac = createHmac('sha256', targetTenantId).update(`${kind}_${digits.length}`).digest('hex');
      offset = BigInt(`0x${mac}`) % (range / 2n) + 1n;
      offsets.set(`${kind}_${digits.length}`, offset);
    }
    out = `${kind}_${toBase62(fromBase62(digits) + offset, digits.length)}`;
    mapped.set(id, out);
    return out;
  };
}

/**
 * A derived id of one of the workloads `candidates` names (those of the row it is in), derived
 * again from that workload's new id; undefined when none of them derives it. Each workload's ids
 * are derived ordinal by ordinal only as far as a search needs, and kept.
 */
function derivedShifter(workloadOf: (id: string) => string) {
  const known = new Map<string, string>();
  const reached = new Map<string, number>();
  return (id: string, kind: DerivedIdKind, candidates: readonly string[]): string | undefined => {
    if (known.has(id)) return known.get(id);
    for (const workload of candidates) {
      const derive = DERIVED_IDS[kind];
      for (let n = (reached.get(`${kind}:${workload}`) ?? 0) + 1; n <= (kind === 'stl' ? 1 : MAX_ORDINAL); n++) {
        reached.set(`${kind}:${workload}`, n);
        const old = derive(workload, n);
        known.set(old, derive(workloadOf(workload), n));
        if (old === id) return known.get(id);
      }
    }
    return undefined;
  };
}

/** How a restore into another tenant changes the document: its head's id and cursor key, then each row. */
export interface SnapshotFork {
  tenantId: string;
  cursorKey: string | null;
  /**
   * Makes the row's ids the target's, in place: its values, named by `columns`. Rows of one
   * document go through one fork, which keeps what it mapped.
   */
  row(table: string, columns: readonly string[], values: SnapshotValues): void;
  /**
   * What `row` makes of the text wherever it is (not base64 bytes); undefined when that depends on
   * the row it is in (it names an id derived from a workload's).
   */
  text(given: string): string | undefined;
}

/**
 * Whether a fork of a document taken from tenant `source` can change the text: none changes a text
 * without a kind of id and `_` in it, or the tenant's id. A held document's texts are sorted once
 * by this, so a fork looks only at those that can change.
 */
export function forkCanChange(source: string | null): (text: string) => boolean {
  const renameTenant = source !== null && OWN_TENANT_ID.test(source);
  return (text) => holdsIdPrefix(text) || (renameTenant && text.includes(source));
}

/**
 * How a restore into `targetTenantId` changes a document taken from tenant `source` (docs/snapshots.md,
 * Forking); undefined when it does not: into the tenant it was taken from, or from a document that
 * names none (version 1), the ids stay. Into any other tenant, every server-wide unique id in
 * every text value becomes one of the same kind and length, derived from the target tenant and
 * the old id, so the same document always restores to the same ids in the same tenant and its
 * copies in other tenants never clash; the source tenant's id becomes the target's; and the
 * cursor key is derived for the target, so a cursor one copy mints pages no other copy.
 */
export function snapshotFork(tenant: { id: string | null; cursor_key: string | null }, targetTenantId: string): SnapshotFork | undefined {
  const source = tenant.id;
  if (source === null || source === targetTenantId) return undefined;
  const shift = idShifter(targetTenantId);
  const shiftMatch = (id: string, ...groups: (string | undefined)[]) => {
    const at = groups.findIndex((group) => group !== undefined);
    return shift(id, groups[at]!, groups[at + 1]!);
  };
  const derived = derivedShifter((workload) => shift(workload, 'wl', workload.slice(3)));
  // The tenant ids the server makes of a key are the ones a workload body names.
  const renameTenant = OWN_TENANT_ID.test(source);
  const memo = new Map<string, string>();
  /** The text forked, and whether what it became depends on its row (the derived ids it names). */
  const forkText = (given: string, replaceDerived: (id: string, kind: DerivedIdKind) => string) => {
    const short = given.length <= MEMO_CHARS;
    let text = short ? memo.get(given) : undefined;
    if (text !== undefined) return { text, ofRow: false };
    text = given;
    let ofRow = false;
    if (holdsIdPrefix(text)) {
      text = text.replace(DERIVED_ID, (id, kind: DerivedIdKind) => {
        ofRow = true;
        return replaceDerived(id, kind);
      }).replace(GLOBAL_ID, (id, ...groups) => shiftMatch(id, ...groups.slice(0, GLOBAL_ID_GROUPS)));
    }
    if (renameTenant && text.includes(source)) text = text.replaceAll(source, targetTenantId);
    // What a derived id becomes depends on its row, so a text holding one is not kept.
    if (short && !ofRow) memo.set(given, text);
    return { text, ofRow };
  };
  return {
    tenantId: targetTenantId,
    cursorKey: tenant.cursor_key === null
      ? null
      : createHmac('sha256', Buffer.from(tenant.cursor_key, 'hex')).update(`fork\n${targetTenantId}`).digest('hex'),
    row(table, columns, values) {
      const hasBytes = BYTE_TABLES.has(table);
      const bytes = (i: number) => hasBytes && BYTE_COLUMNS.has(`${table}.${columns[i]}`);
      // A derived id names no workload: the ones its row names are where it can come from (read
      // before any of its values changes).
      let workloads: string[] | undefined;
      const workloadsOfRow = () => (workloads ??= [...new Set(values
        .filter((value, i) => typeof value === 'string' && !bytes(i))
        .flatMap((value) => [...(value as string).matchAll(GLOBAL_ID)]).map((m) => m[0]).filter((id) => id.startsWith('wl_')))]);
      const replaceDerived = (id: string, kind: DerivedIdKind) => derived(id, kind, workloadsOfRow()) ?? id;
      let changed: [number, string][] | undefined;
      for (let i = 0; i < values.length; i++) {
        const given = values[i];
        if (typeof given !== 'string' || bytes(i)) continue;
        const { text } = forkText(given, replaceDerived);
        if (text !== given) (changed ??= []).push([i, text]);
      }
      for (const [i, text] of changed ?? []) values[i] = text;
    },
    text(given) {
      const { text, ofRow } = forkText(given, (id) => id);
      return ofRow ? undefined : text;
    },
  };
}
