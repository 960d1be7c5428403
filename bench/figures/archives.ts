import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { paxData, tarRecords, type TarRecord } from '../../test/helpers/archives.js';
import { MAIN, mockArgs, startChild } from '../children.js';
import type { Context } from '../context.js';
import { benchKey } from '../mock-api.js';
import { alternate, figure } from '../rounds.js';

/** Uploads checked at once, as in the measurement that found the stall. */
const UPLOADERS = 4;
/** Clients of the other tenant, each reading `GET /v1/assets` in a loop. */
const READERS = 4;
/** The absolute bound the other tenant's p95 must stay under while the uploads are checked. */
export const ISOLATION_P95_MS = 50;

/**
 * The costliest archive to check that the limits let through to the end: 1,000 members, each
 * behind a pax header of 100 records (one a 7 KB comment), so the whole record budget (100,000)
 * and most of the 8 MiB of metadata is parsed; one more record takes it past the record limit,
 * so every upload is refused after all the work and nothing accumulates.
 */
function paxHeavy(): Buffer {
  const records: TarRecord[] = [];
  for (let i = 0; i < 1_000; i++) {
    const pax: Array<[string, string]> = Array.from({ length: 99 }, (_, j) => [`k${j}`, 'v']);
    pax.push(['comment', 'c'.repeat(7_000)]);
    if (i === 999) pax.push(['one', 'more']);
    records.push({ name: 'PaxHeader', type: 'x', data: paxData(pax) }, { name: `f${i}.txt`, data: 'x' });
  }
  return gzipSync(tarRecords(records));
}

const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.95))];

/**
 * Tenant isolation under hostile archives: the p95 latency of another tenant's `GET /v1/assets`
 * while four clients upload the pax-heavy tar.gz above back to back, against the same reads on
 * the idle server. The figure is information; the run fails the figure (`pass: false`) when the
 * p95 under uploads passes ISOLATION_P95_MS.
 */
export async function archives(ctx: Context) {
  const mock = await startChild(MAIN, mockArgs(join(ctx.dir, 'archives.db')));
  const archive = paxHeavy();
  const uploader = benchKey();
  const reader = { authorization: `Bearer ${benchKey()}` };
  let checked = 0;
  try {
    const reads = async (seconds: number) => {
      const latencies: number[] = [];
      const until = performance.now() + seconds * 1000;
      await Promise.all(Array.from({ length: READERS }, async () => {
        while (performance.now() < until) {
          const started = performance.now();
          const res = await fetch(`${mock.url}/v1/assets`, { headers: reader });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`GET /v1/assets answered ${res.status}`);
          latencies.push(performance.now() - started);
        }
      }));
      return latencies;
    };
    const underUploads = async () => {
      let stop = false;
      const uploads = Array.from({ length: UPLOADERS }, async () => {
        while (!stop) {
          const res = await fetch(`${mock.url}/v1/assets/upload?name=heavy.tgz`, {
            method: 'POST',
            headers: { authorization: `Bearer ${uploader}`, 'content-type': 'application/octet-stream' },
            body: archive,
          });
          const body = (await res.json()) as { error?: string };
          if (body.error !== 'archive_too_large') throw new Error(`the pax-heavy upload answered ${res.status} ${JSON.stringify(body)}`);
          checked++;
        }
      });
      const latencies = await reads(ctx.settings.seconds);
      stop = true;
      await Promise.all(uploads);
      return p95(latencies);
    };
    const idle = async () => p95(await reads(ctx.settings.seconds));
    await idle();
    const r = await alternate(ctx.settings.rounds, { underUploads, idle });
    const result = figure(
      { id: 'archive-isolation-p95', title: `another tenant's GET /v1/assets p95 while ${UPLOADERS} clients upload a pax-heavy tar.gz back to back, vs the idle server`, unit: 'ms' },
      { label: 'under pax-heavy uploads', rounds: r.underUploads },
      { label: 'idle', rounds: r.idle },
      { archive_bytes: archive.length, uploads_checked: checked, p95_limit_ms: ISOLATION_P95_MS },
    );
    return [{ ...result, pass: result.subject.median < ISOLATION_P95_MS }];
  } finally {
    await mock.stop();
  }
}
