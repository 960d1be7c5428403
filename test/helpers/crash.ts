import Database from 'better-sqlite3';
import { startCli } from './cli.js';
import { call } from './server.js';
import { legCounting } from './rl.js';

interface CrashRound {
  /** Keys whose launch was answered 202 before the kill, with the workload each got. */
  answered: Map<string, string>;
  /** Every key a launch was sent with. */
  sent: string[];
  problems: string[];
}

const KEY = 'nk_test_crash';

/**
 * Starts a server on `db`, fires a launch storm (`keys` keys, `perKey` concurrent sends each,
 * repeated until killed), kills it with SIGKILL when the `killAtAnswer`th answer arrives, while the
 * storm's other sends are in flight, restarts it on the same file and checks what the issue
 * promises: every 202 exists, every key replays to one workload, the file is intact. `firstEnv`
 * is the first server's environment, beside the test's.
 */
export async function crashRound(db: string, keys: number, perKey: number, killAtAnswer: number, round: number, firstEnv: Record<string, string> = {}): Promise<CrashRound> {
  const first = startCli(['--port', '0', '--db', db], firstEnv);
  const { url } = await first.ready;
  const preview = (await call(url, 'POST', '/v1/rl-runs/preview', KEY, { body: legCounting() })).body;
  const body = { ...preview.configuration, review_token: preview.review_token };
  const answered = new Map<string, string>();
  const sent: string[] = [];
  const problems: string[] = [];
  let killed = false;
  let answers = 0;
  let answeredEnough!: () => void;
  const killTime = new Promise<void>((resolve) => (answeredEnough = resolve));
  const storm = (async () => {
    for (let wave = 0; !killed; wave++) {
      const waveKeys = Array.from({ length: keys }, (_, i) => `crash-${round}-${wave}-${i}`);
      sent.push(...waveKeys);
      await Promise.all(waveKeys.flatMap((key) => Array.from({ length: perKey }, async () => {
        try {
          const res = await call(url, 'POST', '/v1/rl-runs', KEY, { body, headers: { 'idempotency-key': key } });
          // Every answer counts, so a server that refuses the storm is still killed and reported.
          if (++answers === killAtAnswer) answeredEnough();
          if (res.status >= 500) problems.push(`${key}: ${res.status} before the kill`);
          if (res.status !== 202) return;
          const known = answered.get(key);
          if (known && known !== res.body.id) problems.push(`${key} answered two workloads: ${known}, ${res.body.id}`);
          answered.set(key, res.body.id);
        } catch {
          // the connection died with the server
        }
      })));
    }
  })();
  // A server that exits by itself answers no more: the round ends there and says so, where the
  // storm would have gone on failing to connect until the test's timeout.
  const exitedFirst = await Promise.race([killTime.then(() => undefined), first.exited.then((code) => ({ code }))]);
  if (exitedFirst) problems.push(`the server exited by itself (code ${exitedFirst.code}) after ${answers} answers, before the kill`);
  else first.child.kill('SIGKILL');
  killed = true;
  await first.exited;
  await storm;

  const second = startCli(['--port', '0', '--db', db]);
  try {
    const { url: url2 } = await second.ready;
    for (const [key, id] of answered) {
      const res = await call(url2, 'GET', `/v1/workloads/${id}`, KEY);
      if (res.status !== 200) problems.push(`${id} (answered 202 for ${key}) is gone: ${res.status}`);
    }
    for (const key of sent) {
      const res = await call(url2, 'POST', '/v1/rl-runs', KEY, { body, headers: { 'idempotency-key': key } });
      if (res.status !== 202) problems.push(`${key}: retry after restart answered ${res.status}`);
      const before = answered.get(key);
      if (before && (res.body.id !== before || res.headers.get('idempotent-replayed') !== 'true')) {
        problems.push(`${key}: retry after restart is not a replay of ${before}: ${res.body.id}`);
      }
    }
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
  const file = new Database(db, { readonly: true });
  try {
    const integrity = file.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') problems.push(`integrity_check: ${integrity}`);
    const { workloads, keys: stored } = file
      .prepare("SELECT (SELECT count(*) FROM workloads) AS workloads, (SELECT count(*) FROM idempotency_keys WHERE scope = 'rl_run.launch') AS keys")
      .get() as { workloads: number; keys: number };
    if (workloads !== stored) problems.push(`${workloads} workloads for ${stored} keys: some key maps to two workloads, or a workload to none`);
  } finally {
    file.close();
  }
  return { answered, sent, problems };
}
