import { createReadStream, readFileSync, statSync, writeFileSync } from 'node:fs';
import { get, request } from 'node:http';
import { dirname, join } from 'node:path';
import t from '../../helpers/tap.js';
import { SNAPSHOT_VERSION } from '../../../openapi/snapshot.js';
import { packageVersion } from '../../../server/boot/package-info.js';
import { SERVER_NUMBERED, SNAPSHOT_REFERENCES, SNAPSHOT_TABLES, type SnapshotTable } from '../../../store/snapshot.js';
import { advance, launchRun, legCounting, manyWorkloads } from '../../helpers/rl.js';
import { freshKey, startServer, tempDbPath, type ListeningServer, type TestServer } from '../../helpers/server.js';

const SETTINGS = { clock: 'manual' } as const;

const tenantOf = async (s: TestServer, key?: string) => (await s.call('GET', '/v1/me', { key })).body.tenant as string;

/**
 * The document as GET answered it whole before it streamed: the same rows, read at once, the keys
 * the server numbers across tenants as positions, in one JSON.stringify.
 */
function heldWhole(s: TestServer, tenantId: string, createdAt: string): string {
  const db = s.store.db;
  const positions = new Map<string, Map<unknown, number>>();
  const tables = Object.fromEntries((Object.entries(SNAPSHOT_TABLES) as [SnapshotTable, (typeof SNAPSHOT_TABLES)[SnapshotTable]][]).map(([table, owner]) => {
    const columns = (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name).filter((c) => c !== 'tenant_id');
    const rows = (owner.by === 'tenant'
      ? db.prepare(`SELECT * FROM ${table} WHERE tenant_id = ? ORDER BY rowid`)
      : db.prepare(`SELECT t.* FROM ${table} t JOIN ${owner.parent} p ON p.${owner.key} = t.${owner.column} WHERE p.tenant_id = ? ORDER BY t.rowid`)
    ).all(tenantId) as Record<string, unknown>[];
    const numbered = SERVER_NUMBERED[table];
    const refers = SNAPSHOT_REFERENCES[table];
    if (numbered) positions.set(table, new Map(rows.map((row, i) => [row[numbered], i + 1])));
    return [table, rows.map((row) => Object.fromEntries(columns.map((c) => [c,
      c === numbered ? positions.get(table)!.get(row[c])
        : c === refers?.column ? positions.get(refers.table)!.get(row[c])
          : Buffer.isBuffer(row[c]) ? row[c].toString('base64') : row[c]])))];
  }));
  const { mode, scale, nowMs } = s.app.services.context.clock.view(tenantId);
  return JSON.stringify({
    format: 'nodus-mock.snapshot',
    version: SNAPSHOT_VERSION,
    created_at: createdAt,
    mock_version: packageVersion(),
    tenant: { clock: { mode, scale, now_ms: nowMs }, id: tenantId, cursor_key: s.store.cached.cursorKey(tenantId), tables },
  });
}

t.test('the streamed document is, byte for byte, the one JSON.stringify wrote of the whole state', async (t) => {
  for (const db of [undefined, ':memory:']) {
    const s = await startServer(t, { ...SETTINGS, db });
    for (const seed of [1, 2, 3]) await launchRun(s, legCounting({ seed }));
    const upload = await s.call('POST', '/v1/assets/upload?name=data.bin', { raw: new Uint8Array(70_000).map((_, i) => i * 7), headers: { 'content-type': 'application/octet-stream' } });
    t.equal(upload.status, 201);
    await advance(s, 200);
    const res = await s.call('GET', '/_mock/snapshot');
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^application\/json/);
    t.ok(res.text.length > 3 * 64 * 1024, `several chunks (${res.text.length} characters)`);
    t.ok(res.text === heldWhole(s, await tenantOf(s), res.body.created_at), `${db ?? 'a file'}: the same bytes`);
  }
});

/** A tenant of 5,000 workloads, not yet brought up to now, on a server of its own that the tests below share. */
const big = (async () => {
  const s = await startServer(t, SETTINGS);
  await manyWorkloads(s, 5000);
  return s;
})();

/** The process's peak RSS since startPeak, which answers its RSS then (Linux). */
const status = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
const peak = () => status('VmHWM');
function startPeak(): number {
  writeFileSync('/proc/self/clear_refs', '5');
  return status('VmRSS');
}

/** A PUT of the file's bytes as they are read from it, under `key`. */
function putFile(s: ListeningServer, key: string, file: string): Promise<{ status: number; text: string; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${s.url}/_mock/snapshot`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(statSync(file).size) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, text, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    createReadStream(file).pipe(req);
  });
}

t.test('a 5,000-workload tenant exports while another tenant\'s reads are answered, without growing the process, and restores row for row', async (t) => {
  const s = await big;
  const other = freshKey();
  const { id: otherRun } = await launchRun(s, legCounting({ seed: 8 }), 'other-run', other);

  // The export and the other tenant's reads run at once; the log says what arrived in which order.
  const log: string[] = [];
  let done = false;
  const exported = (async () => {
    const res = await fetch(`${s.url}/_mock/snapshot`, { headers: { authorization: `Bearer ${s.key}` } });
    log.push('headers');
    const parts: Uint8Array[] = [];
    for await (const chunk of res.body!) {
      parts.push(chunk);
      log.push('chunk');
    }
    done = true;
    return Buffer.concat(parts).toString('utf8');
  })();
  const statuses = new Set<number>();
  while (!done) {
    statuses.add((await s.call('GET', `/v1/workloads/${otherRun}`, { key: other })).status);
    log.push('read');
  }
  const text = await exported;
  t.same([...statuses], [200], 'every read of the other tenant answered');
  const headers = log.indexOf('headers');
  const [first, last] = [log.indexOf('chunk'), log.lastIndexOf('chunk')];
  t.ok(log.slice(0, headers).filter((e) => e === 'read').length >= 5, 'reads answered while the workloads were brought up to now');
  t.ok(log.slice(first, last).filter((e) => e === 'read').length >= 5, 'reads answered between the chunks of the rows');

  // The parsed document is let go before the peaks below are taken: V8 lets garbage grow with the
  // live heap before it collects, so the copy held here raised the restore's own peak (under tap's
  // coverage the PUT's was 118-133 MiB with it held, against the bound of 128; 45-75 MiB without).
  const rows = ((doc) => {
    t.equal(doc.tenant.tables.workloads.length, 5000);
    t.ok(doc.tenant.tables.workloads.every((w: { settled: number }) => w.settled === 1), 'every run brought to its end first');
    t.ok(doc.tenant.tables.rl_events.length >= 5000 * 2, `${doc.tenant.tables.rl_events.length} RL events`);
    return Object.fromEntries(Object.entries(doc.tenant.tables).map(([table, list]) => [table, (list as unknown[]).length]));
  })(JSON.parse(text));

  // The same export again, now with nothing to materialise: its peak RSS against the process's before it.
  if (process.platform === 'linux') {
    const before = startPeak();
    const res = await fetch(`${s.url}/_mock/snapshot`, { headers: { authorization: `Bearer ${s.key}` } });
    let bytes = 0;
    for await (const chunk of res.body!) bytes += chunk.length;
    const grown = peak() - before;
    // A copy of the document would be its 59 MiB at least. Below that, the bound leaves room for
    // the heap V8 lets grow between collections, which differs by version: 8 MiB was measured on
    // Node 20, 25-29 MiB on Node 24, for the same rows.
    t.ok(grown < 48 * 2 ** 20, `a ${(bytes / 2 ** 20).toFixed(1)} MiB document grew the process by ${(grown / 2 ** 20).toFixed(1)} MiB at its peak`);
  }

  // Under the same key, so the same tenant: the ids stay (a fork would change them). Sent from a
  // file a block at a time, so the process's peak is the restore's own.
  const b = await startServer(t, SETTINGS);
  const file = join(dirname(tempDbPath(t)), 'snapshot.json');
  writeFileSync(file, text);
  const before = process.platform === 'linux' ? startPeak() : 0;
  const restored = await putFile(b, s.key, file);
  t.equal(restored.status, 200, restored.text.slice(0, 300));
  if (process.platform === 'linux') {
    const grown = peak() - before;
    // The document parsed whole would be several times its 59 MiB; streamed, the peak is the heap V8
    // lets grow between collections, 45-134 MiB measured under coverage with two test files at a time.
    t.ok(grown < 192 * 2 ** 20, `a ${(Buffer.byteLength(text) / 2 ** 20).toFixed(1)} MiB PUT grew the process by ${(grown / 2 ** 20).toFixed(1)} MiB at its peak`);
  }
  t.same(restored.body.rows, rows);
  const again = (await b.call('GET', '/_mock/snapshot', { key: s.key })).text;
  // The journal apart, without the restore's own row, which it journals after it.
  const parts = (doc: string) => {
    const [start, end] = [doc.indexOf('"request_journal":'), doc.indexOf(',"scenario_applied":')];
    const journal = JSON.parse(doc.slice(start + '"request_journal":'.length, end)) as { path: string }[];
    return { rest: (doc.slice(0, start) + doc.slice(end)).replace(/"created_at":"[^"]*"/, ''), journal: journal.filter((r) => r.path !== '/_mock/snapshot') };
  };
  const [was, is] = [parts(text), parts(again)];
  t.ok(is.rest === was.rest, 'the restored tenant exports the same document, row for row');
  t.same(is.journal, was.journal, 'its journal too');
});

/** The server's reader of snapshot rows, failing at the `failAt`th row of `table` when given one; `closed` settles when the read ends. */
function watchReader(s: TestServer, fail?: { table: string; at: number }) {
  const open = s.store.snapshot.openReader;
  let ended: () => void;
  const closed = new Promise<void>((resolve) => (ended = resolve));
  s.store.snapshot.openReader = (tenantId) => {
    const reader = open(tenantId);
    return {
      *tables() {
        for (const [table, rows] of reader.tables()) {
          if (table !== fail?.table) yield [table, rows];
          else {
            yield [table, (function* () {
              let n = 0;
              for (const row of rows) {
                if (++n === fail.at) throw new Error('the disk went away');
                yield row;
              }
            })()];
          }
        }
      },
      close() {
        reader.close();
        ended();
      },
    };
  };
  return { closed };
}

t.test('an export that fails after its first bytes cuts the connection, never a shorter document that parses', async (t) => {
  const s = await big;
  const { closed } = watchReader(s, { table: 'rl_events', at: 1000 });
  const res = await fetch(`${s.url}/_mock/snapshot`, { headers: { authorization: `Bearer ${s.key}` } });
  t.equal(res.status, 200, 'the headers went out before the failure');
  await t.rejects(res.text(), 'the body ends in an error, not in a document');
  await closed;
  t.equal((await s.call('GET', '/v1/me')).status, 200, 'the server goes on');
});

t.test('a client that goes away mid-export ends its read', async (t) => {
  const s = await big;
  const { closed } = watchReader(s);
  const request = get(`${s.url}/_mock/snapshot`, { headers: { authorization: `Bearer ${s.key}` } });
  request.once('response', (res) => res.once('data', () => request.destroy()));
  request.once('error', () => undefined);
  await closed;
  t.pass('the read ended with the connection');
});
