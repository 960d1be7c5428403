import t from '../../helpers/tap.js';
import { startInProcess } from '../../helpers/server.js';

t.test('manual clock: still until advanced, never backwards', async (t) => {
  let wall = Date.parse('2026-01-01T00:00:00Z');
  const s = await startInProcess(t, { clock: 'manual' }, { wallNow: () => wall });
  const start = await s.call('GET', '/_mock/clock');
  t.equal(start.status, 200);
  t.equal(start.body.mode, 'manual');
  t.equal(start.body.scale, 60);
  wall += 3_600_000;
  t.equal((await s.call('GET', '/_mock/clock')).body.now, start.body.now, 'wall time does not move a manual clock');
  const advanced = await s.call('POST', '/_mock/clock/advance', { body: { seconds: 90.5 } });
  t.equal(advanced.status, 200);
  t.equal(Date.parse(advanced.body.now) - Date.parse(start.body.now), 90_500);
  for (const seconds of [0, -5, 'x', null]) {
    const bad = await s.call('POST', '/_mock/clock/advance', { body: { seconds } });
    t.equal(bad.status, 400, `seconds=${seconds}`);
    t.equal(bad.body.error, 'invalid_request');
  }
});

t.test('realtime clock follows wall time times the scale; switching keeps now', async (t) => {
  let wall = Date.parse('2026-01-01T00:00:00Z');
  const s = await startInProcess(t, { clock: 'realtime', timeScale: 60 }, { wallNow: () => wall });
  const t0 = Date.parse((await s.call('GET', '/_mock/clock')).body.now);
  wall += 1000;
  const t1 = Date.parse((await s.call('GET', '/_mock/clock')).body.now);
  t.equal(t1 - t0, 60_000, 'one wall second is a virtual minute');

  const toManual = await s.call('PUT', '/_mock/clock', { body: { mode: 'manual' } });
  t.equal(toManual.body.mode, 'manual');
  t.equal(Date.parse(toManual.body.now), t1, 'switching does not jump');
  wall += 5000;
  t.equal(Date.parse((await s.call('GET', '/_mock/clock')).body.now), t1);

  const back = await s.call('PUT', '/_mock/clock', { body: { mode: 'realtime', scale: 2 } });
  t.equal(back.body.scale, 2);
  wall += 1000;
  t.equal(Date.parse((await s.call('GET', '/_mock/clock')).body.now), t1 + 2000);

  const bad = await s.call('PUT', '/_mock/clock', { body: { mode: 'realtime', scale: 0 } });
  t.equal(bad.status, 400);
});

t.test('clocks are per tenant', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const other = 'nk_test_other_tenant';
  const before = (await s.call('GET', '/_mock/clock', { key: other })).body.now;
  await s.call('POST', '/_mock/clock/advance', { body: { seconds: 3600 } });
  t.equal((await s.call('GET', '/_mock/clock', { key: other })).body.now, before);
});

t.test('scale at most 1,000,000 and an advance of at most ten years: beyond either is a 400 envelope', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const tenYears = 10 * 365 * 24 * 3600;
  for (const [what, res] of [
    ['scale 1,000,001', await s.call('PUT', '/_mock/clock', { body: { mode: 'realtime', scale: 1_000_001 } })],
    ['an advance of ten years and a second', await s.call('POST', '/_mock/clock/advance', { body: { seconds: tenYears + 1 } })],
  ] as const) {
    t.equal(res.status, 400, what);
    t.match(res.body, { error: 'invalid_request', message: /\S/ }, `${what}: the error envelope`);
  }
  const before = Date.parse((await s.call('GET', '/_mock/clock')).body.now);
  const advanced = await s.call('POST', '/_mock/clock/advance', { body: { seconds: tenYears } });
  t.equal(advanced.status, 200, 'ten years exactly is accepted');
  t.equal(Date.parse(advanced.body.now) - before, tenYears * 1000);
  const fastest = await s.call('PUT', '/_mock/clock', { body: { mode: 'realtime', scale: 1_000_000 } });
  t.equal(fastest.status, 200, 'scale 1,000,000 is accepted');
  t.equal(fastest.body.scale, 1_000_000);
});
