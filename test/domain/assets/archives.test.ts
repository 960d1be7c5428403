import { gzipSync } from 'node:zlib';
import t from '../../helpers/tap.js';
import { listArchive } from '../../../server/domain/assets/archives.js';
import { paxData, tarRecords, zipOf, type TarRecord } from '../../helpers/archives.js';

/** Runs `work` while counting the event loop's turns: how often other requests could have been served meanwhile. */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const spin = () => {
    if (!running) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    return { result: await work(), turns };
  } finally {
    running = false;
  }
}

// 120 pax headers of 800 small records each: within every limit, and much parsing per byte.
const tinyRecords = paxData(Array.from({ length: 800 }, (_, i) => [`k${i}`, 'v']));
const paxHeavy = tarRecords(Array.from({ length: 120 }, (_, i): TarRecord[] => [{ name: 'p', type: 'x', data: tinyRecords }, { name: `f${i}`, data: 'x' }]).flat());

t.test('checking a pax-heavy tar gives the event loop back as it goes, in every archive kind', async (t) => {
  t.ok(tinyRecords.length < 64 * 1024 && 800 * 120 < 100_000, 'within the header limits');
  for (const [kind, data] of [['tar', paxHeavy], ['tar.gz', gzipSync(paxHeavy)]] as const) {
    const { result, turns } = await turnsDuring(() => listArchive(kind, data, `heavy.${kind}`, 1 << 30));
    t.equal(result.length, 120, `${kind}: every member listed`);
    t.ok(turns >= 2, `${kind}: the event loop turned ${turns} times while it was checked`);
  }
});

t.test('checking a zip of many entries gives the event loop back as it goes', async (t) => {
  const extra = Buffer.alloc(4 + 600);
  extra.writeUInt16LE(0xcafe, 0);
  extra.writeUInt16LE(600, 2);
  const zip = zipOf(Array.from({ length: 10_000 }, (_, i) => ({ path: `d/f${i}.txt`, content: 'x', centralExtra: extra })));
  const { result, turns } = await turnsDuring(() => listArchive('zip', zip, 'many.zip', 1 << 30));
  t.equal(result.length, 10_000);
  t.ok(turns >= 2, `the event loop turned ${turns} times while it was checked`);
});
