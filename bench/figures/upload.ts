import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { MAIN, mockArgs, startChild } from '../children.js';
import type { Context } from '../context.js';
import { benchKey } from '../mock-api.js';
import { alternate, figure } from '../rounds.js';

const MIB = 1024 * 1024;
/** Big enough that per-request costs vanish next to moving the bytes; small enough for any machine. */
const UPLOAD_MIB = 32;
/** Uploads per round, so a round lasts long enough to be measured on a noisy machine. */
const PER_ROUND = 4;

/**
 * POST /v1/assets/upload: how fast the bytes of an upload become a stored, hashed, durable asset,
 * against the plainest durable write of the same bytes in the same run (one file, written in the
 * same 64 KiB chunks the SDK sends and fsynced). The upload pays the HTTP hop, the hash, the
 * SQLite transaction and the WAL; the ratio says what those cost together.
 */
export async function upload(ctx: Context) {
  const db = join(ctx.dir, 'upload.db');
  const mock = await startChild(MAIN, mockArgs(db, '--max-import-bytes', String(UPLOAD_MIB * MIB), '--asset-quota-bytes', String(2 ** 40)));
  const key = benchKey();
  const data = randomBytes(UPLOAD_MIB * MIB);
  const chunks = Array.from({ length: data.length / (64 * 1024) }, (_, i) => data.subarray(i * 64 * 1024, (i + 1) * 64 * 1024));
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' };
  const mibPerSecond = (started: bigint) => (UPLOAD_MIB * PER_ROUND) / (Number(process.hrtime.bigint() - started) / 1e9);
  try {
    const uploads = async () => {
      const started = process.hrtime.bigint();
      const ids: string[] = [];
      for (let i = 0; i < PER_ROUND; i++) {
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(chunk);
            controller.close();
          },
        });
        const res = await fetch(`${mock.url}/v1/assets/upload?name=weights.bin`, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
        const asset = (await res.json()) as { id?: string };
        if (res.status !== 201 || !asset.id) throw new Error(`upload answered ${res.status}`);
        ids.push(asset.id);
      }
      const rate = mibPerSecond(started);
      // Outside the timing: the next round starts from the same database size.
      for (const id of ids) await fetch(`${mock.url}/v1/assets/${id}`, { method: 'DELETE', headers });
      return rate;
    };
    const files = async () => {
      const started = process.hrtime.bigint();
      for (let i = 0; i < PER_ROUND; i++) {
        const path = join(ctx.dir, `upload-${i}.bin`);
        const fd = openSync(path, 'w');
        for (const chunk of chunks) writeSync(fd, chunk);
        fsyncSync(fd);
        closeSync(fd);
      }
      const rate = mibPerSecond(started);
      for (let i = 0; i < PER_ROUND; i++) rmSync(join(ctx.dir, `upload-${i}.bin`));
      return rate;
    };
    await uploads();
    await files();
    const r = await alternate(ctx.settings.rounds, { uploads, files });
    return [
      figure(
        { id: 'upload-throughput', title: `POST /v1/assets/upload of ${UPLOAD_MIB} MiB, streamed in 64 KiB chunks: MiB/s vs an fsynced file write`, unit: 'MiB/s' },
        { label: 'upload to a stored asset', rounds: r.uploads },
        { label: 'write + fsync a file', rounds: r.files },
      ),
    ];
  } finally {
    await mock.stop();
  }
}
