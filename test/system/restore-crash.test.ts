import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync, watch } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import t from '../helpers/tap.js';
import { startCli } from '../helpers/cli.js';
import { advance, launchRun, legCounting } from '../helpers/rl.js';
import { call, freshKey, startServer, tempDbPath, type Teardown, type TestServer } from '../helpers/server.js';

// An open-mode key names the same tenant on every server, so both documents are that tenant's own.
const KEY = freshKey();
// A manual clock: the tenant read after a restart is the state it was left in, not a later now's.
const ARGS = ['--port', '0', '--clock', 'manual'];
const ASSET_BYTES = 8 * 1024 * 1024;

async function ok(s: TestServer, method: string, path: string, options: Parameters<TestServer['call']>[2] = {}) {
  const res = await s.call(method, path, { key: KEY, ...options });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res;
}

/**
 * The document as a tenant's state: everything but when it was taken and the journal's row of the
 * restore itself, hashed (a diff of tens of MB helps no one). That row is written once the answer
 * has gone, so a kill on the answer comes before or after it (3 rounds of 12 after).
 */
const stateOf = (text: string) => {
  const doc = JSON.parse(text) as { created_at: unknown; tenant: { tables: { request_journal: { method: string; path: string }[] } } };
  const journal = doc.tenant.tables.request_journal.filter((row) => !(row.method === 'PUT' && row.path === '/_mock/snapshot'));
  return createHash('sha256').update(JSON.stringify({ ...doc, created_at: null, tenant: { ...doc.tenant, tables: { ...doc.tenant.tables, request_journal: journal } } })).digest('hex');
};

interface Documents {
  OLD: string;
  NEW: Buffer;
  /** Each document's state, by its hash. */
  names: Map<string, 'OLD' | 'NEW'>;
}

/**
 * The two states of the tenant. OLD, left in `db`: a finished run and a small asset. NEW, made on
 * a server of its own and answered as its snapshot's text: runs with their events and two
 * assets of 8 MiB of random bytes: over 20 MB of document.
 */
async function documents(t: Teardown, db: string): Promise<Documents> {
  const made = await startServer(t, { clock: 'manual' });
  await launchRun(made, legCounting({ evaluation_tasks: 6, seed: 1 }), 'new-done', KEY);
  await advance(made, 4000, KEY);
  await launchRun(made, legCounting({ evaluation_tasks: 8, seed: 2 }), 'new-running', KEY);
  await advance(made, 120, KEY);
  for (let i = 0; i < 2; i++) {
    await ok(made, 'POST', `/v1/assets/upload?name=new-${i}.bin`, { raw: randomBytes(ASSET_BYTES), headers: { 'content-type': 'application/octet-stream' } });
  }
  const NEW = (await ok(made, 'GET', '/_mock/snapshot')).text;
  await made.close();

  const old = await startServer(t, { clock: 'manual', db });
  await launchRun(old, legCounting({ evaluation_tasks: 4, seed: 3 }), 'old-done', KEY);
  await advance(old, 4000, KEY);
  await ok(old, 'POST', '/v1/assets/upload?name=old.txt', { raw: 'old\n', headers: { 'content-type': 'application/octet-stream' } });
  const OLD = (await ok(old, 'GET', '/_mock/snapshot')).text;
  await old.close();
  return { OLD, NEW: Buffer.from(NEW), names: new Map([[stateOf(OLD), 'OLD'], [stateOf(NEW), 'NEW']]) };
}

/** When the server is killed: after a share of the body is on the socket, once it all is, once the WAL has grown by so many bytes, or once the 200 arrived. */
type Moment = { sent: number } | 'all sent' | { walGrowth: number } | 'answered';

interface Put {
  /** The moment the kill came at; a WAL moment the answer beat is 'answered'. */
  killed: string;
  status: number | undefined;
  sentAll: boolean;
}

/**
 * PUTs `body` as the tenant's snapshot and calls `kill` at `moment`: every wait is for an event
 * (a write flushed, the request finished, the WAL file changed, the answer's head), none for time.
 */
function putAndKill(url: string, body: Buffer, moment: Moment, wal: string, kill: () => void): Promise<Put> {
  const walSize = () => {
    try {
      return statSync(wal).size;
    } catch {
      return 0;
    }
  };
  const walBefore = walSize();
  return new Promise((resolve) => {
    let killed: string | undefined;
    let status: number | undefined;
    let sentAll = false;
    let watcher: ReturnType<typeof watch> | undefined;
    const killNow = (at: string) => {
      if (killed) return;
      killed = at;
      watcher?.close();
      kill();
    };
    const req = request(`${url}/_mock/snapshot`, {
      method: 'PUT',
      agent: false,
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'content-length': body.length },
    });
    req.on('response', (res) => {
      status = res.statusCode;
      res.resume();
      killNow('answered');
    });
    req.on('error', () => undefined);
    req.on('close', () => resolve({ killed: killed ?? 'never', status, sentAll }));

    const watchWal = (growth: number) => {
      const check = () => {
        const grown = walSize() - walBefore;
        if (grown >= growth) killNow(`WAL +${grown} bytes`);
      };
      watcher = watch(dirname(wal), (_, name) => name === basename(wal) && check());
      check();
    };
    const CHUNK = 256 * 1024;
    let offset = 0;
    const pump = () => {
      while (!killed && offset < body.length) {
        const end = Math.min(offset + CHUNK, body.length);
        const more = req.write(body.subarray(offset, end), () => {
          if (typeof moment === 'object' && 'sent' in moment && end >= moment.sent * body.length) killNow(`${end} of ${body.length} bytes sent`);
        });
        offset = end;
        if (!more) {
          req.once('drain', pump);
          return;
        }
      }
      if (killed) return;
      if (typeof moment === 'object' && 'walGrowth' in moment) watchWal(moment.walGrowth);
      req.end(() => {
        sentAll = true;
        if (moment === 'all sent') killNow('all sent');
      });
    };
    pump();
  });
}

interface Round {
  moment: Moment;
  put: Put;
  state: 'OLD' | 'NEW' | 'neither';
  integrity: unknown;
  /** What the killed server left in its temporary folder. */
  left: string[];
}

/** One round on a copy of the OLD file: the PUT killed at `moment`, then a restart on the same file and the tenant's snapshot. */
async function round(base: string, db: string, docs: Documents, moment: Moment): Promise<Round> {
  copyFileSync(base, db);
  // Its own temporary folder: what a restore spooled there must go with the killed process.
  const temp = mkdtempSync(join(dirname(db), 'tmp-'));
  const first = startCli([...ARGS, '--db', db], { TMPDIR: temp });
  const { url } = await first.ready;
  const put = await putAndKill(url, docs.NEW, moment, `${db}-wal`, () => first.child.kill('SIGKILL'));
  await first.exited;
  const left = readdirSync(temp);
  rmSync(temp, { recursive: true });

  const second = startCli([...ARGS, '--db', db]);
  let text: string;
  try {
    const { url: again } = await second.ready;
    const res = await call(again, 'GET', '/_mock/snapshot', KEY);
    if (res.status !== 200) throw new Error(`snapshot after the restart: ${res.status} ${res.text.slice(0, 500)}`);
    text = res.text;
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
  const file = new Database(db, { readonly: true });
  const integrity = file.pragma('integrity_check', { simple: true });
  file.close();
  return { moment, put, integrity, left, state: docs.names.get(stateOf(text)) ?? 'neither' };
}

t.test('kill -9 during a large restore leaves the tenant wholly old or wholly new, and an answered one new', async (t) => {
  const base = tempDbPath(t);
  const docs = await documents(t, base);
  t.ok(docs.NEW.length > 20 * 1024 * 1024, `the new document is ${docs.NEW.length} bytes`);
  const db = tempDbPath(t);
  const moments: Moment[] = [{ sent: 0.3 }, { sent: 0.95 }, 'all sent', { walGrowth: 1024 * 1024 }, { walGrowth: ASSET_BYTES }, 'answered'];
  for (const moment of moments) {
    const r = await round(base, db, docs, moment);
    const name = `killed at ${JSON.stringify(moment)}: ${r.put.killed}, answered ${r.put.status ?? 'nothing'}`;
    t.equal(r.integrity, 'ok', `${name}: the file is intact`);
    t.same(r.left, [], `${name}: no spool left in the temporary folder`);
    // Each kill came at the moment it was meant for: else the round tests another one.
    if (typeof moment === 'object' && 'walGrowth' in moment) t.match(r.put.killed, /^WAL /, `${name}: killed while the restore was writing`);
    if (moment === 'answered') t.equal(r.put.status, 200, `${name}: the restore was answered`);
    if (!r.put.sentAll) t.equal(r.state, 'OLD', `${name}: a body cut short changes nothing`);
    else if (r.put.status === 200) t.equal(r.state, 'NEW', `${name}: an answered restore is the new state`);
    else t.not(r.state, 'neither', `${name}: wholly OLD or wholly NEW (${r.state})`);
  }
});
