import t from '../../helpers/tap.js';
import type { CurrentSnapshot } from '../../../openapi/snapshot.js';
import { snapshotFork } from '../../../server/domain/snapshots/fork.js';
import { DERIVED_IDS } from '../../../server/domain/ids.js';
import type { SnapshotRow } from '../../../store/snapshot.js';

/** The whole document as a restore into `targetTenantId` inserts it, row by row through the fork. */
function forkSnapshot(doc: CurrentSnapshot, targetTenantId: string): CurrentSnapshot {
  const fork = snapshotFork(doc.tenant, targetTenantId);
  if (!fork) return doc;
  const forked = (table: string, row: SnapshotRow) => {
    const [columns, values] = [Object.keys(row), Object.values(row)];
    fork.row(table, columns, values);
    return Object.fromEntries(columns.map((column, i) => [column, values[i]]));
  };
  const tables = Object.fromEntries(Object.entries(doc.tenant.tables)
    .map(([table, rows]) => [table, (rows as SnapshotRow[]).map((row) => forked(table, row))])) as unknown as CurrentSnapshot['tenant']['tables'];
  return { ...doc, tenant: { ...doc.tenant, id: fork.tenantId, cursor_key: fork.cursorKey, tables } };
}

const SOURCE = 'tn_0123456789abcdef0123';
const [WL1, WL2] = ['wl_0VcjAAAA000000000001', 'wl_0VcjAAAA000000000002'];
const ASSET = 'asset_AbCdEfGhIjKlMnOpQrSt';
const FAULT = 'flt_0123456789ABCDEF';
const MSG = 'msg_abcdefghijklmnopqrstuvwx';

function doc(tenantId: string | null): CurrentSnapshot {
  const row = (id: string) => ({ id, payload: JSON.stringify({ source: { asset_id: ASSET } }) });
  return {
    format: 'nodus-mock.snapshot', version: 2, created_at: '2026-12-01T00:00:00.000Z', mock_version: 'test',
    tenant: {
      id: tenantId,
      clock: { mode: 'manual', scale: 60, now_ms: 0 },
      cursor_key: 'ab'.repeat(32),
      tables: {
        workloads: [row(WL1), row(WL2)],
        assets: [{ id: ASSET }],
        faults: [],
        webhook_deliveries: [{
          id: MSG, workload_id: WL2,
          body: JSON.stringify({ id: MSG, data: { id: WL2, tenant_id: SOURCE, latest_checkpoint: { manifest_id: DERIVED_IDS.mf(WL2, 3) } } }),
        }],
        request_journal: [{ path: `/_mock/faults/${FAULT}`, fault_id: FAULT, body: `{"note":"xwl_0VcjAAAA000000000009"}` }],
        asset_contents: [{ asset_id: ASSET, data: Buffer.from(WL1).toString('base64') }],
      },
    },
  } as unknown as CurrentSnapshot;
}

const tables = (d: CurrentSnapshot) => d.tenant.tables as unknown as Record<string, Record<string, string>[]>;

t.test('into the tenant it came from, or from a document that names none, the document is unchanged', async (t) => {
  for (const d of [doc(SOURCE), doc(null)]) t.equal(forkSnapshot(d, SOURCE), d);
});

t.test('into another tenant: every server-wide id becomes one of its kind and length, found wherever it is', async (t) => {
  const original = doc(SOURCE);
  const text = JSON.stringify(original);
  const forked = forkSnapshot(original, 'tn_ffffffffffffffffffff');
  t.equal(JSON.stringify(original), text, 'the document given is not changed');
  const out = JSON.stringify(forked.tenant.tables);
  for (const id of [WL1, WL2, ASSET, FAULT, MSG, SOURCE, DERIVED_IDS.mf(WL2, 3)]) t.notOk(out.includes(id), `${id} survives nowhere`);
  const [w1, w2] = tables(forked).workloads.map((w) => w.id);
  t.match(w1, /^wl_[0-9A-Za-z]{20}$/);
  t.ok(w1 < w2, 'workload ids keep their order, which lists sort by');
  t.match(tables(forked).assets[0].id, /^asset_[0-9A-Za-z]{20}$/);
  t.equal(JSON.parse(tables(forked).workloads[0].payload).source.asset_id, tables(forked).assets[0].id, 'a JSON column names the new asset');
  t.match(tables(forked).request_journal[0], { path: `/_mock/faults/${tables(forked).request_journal[0].fault_id}`, body: `{"note":"xwl_0VcjAAAA000000000009"}` },
    'a deleted fault\'s id is mapped where it is; an id inside a longer word is none');
  const body = JSON.parse(tables(forked).webhook_deliveries[0].body);
  t.same(body, { id: tables(forked).webhook_deliveries[0].id, data: { id: w2, tenant_id: 'tn_ffffffffffffffffffff', latest_checkpoint: { manifest_id: DERIVED_IDS.mf(w2, 3) } } },
    'a webhook body: the delivery, workload and tenant ids, and the manifest id derived again from the new workload id');
  t.equal(tables(forked).asset_contents[0].data, Buffer.from(WL1).toString('base64'), 'an asset\'s bytes are the tenant\'s, untouched');
  t.match(forked.tenant.cursor_key, /^[0-9a-f]{64}$/);
  t.not(forked.tenant.cursor_key, original.tenant.cursor_key, 'a cursor key of its own');
  t.equal(forked.tenant.id, 'tn_ffffffffffffffffffff');
});

t.test('the same document into the same tenant gives the same ids; into another, others', async (t) => {
  const a = forkSnapshot(doc(SOURCE), 'tn_aaaaaaaaaaaaaaaaaaaa');
  t.same(forkSnapshot(doc(SOURCE), 'tn_aaaaaaaaaaaaaaaaaaaa'), a);
  const b = forkSnapshot(doc(SOURCE), 'tn_bbbbbbbbbbbbbbbbbbbb');
  for (const table of ['workloads', 'assets', 'webhook_deliveries']) t.not(tables(a)[table][0].id, tables(b)[table][0].id, table);
  t.not(a.tenant.cursor_key, b.tenant.cursor_key);
});
