// The inspector's view of what a workload names: its connection and sweep, and a sweep's runs
// grouped on a page of their own; and a secret put through /v1 shows nowhere on the page.
import t from '../helpers/tap.js';
import type { Page } from 'puppeteer-core';
import { connect, liveWandb } from '../helpers/connections.js';
import { inspectorUrl, openPage, sharedBrowser } from '../helpers/inspector.js';
import { advance } from '../helpers/rl.js';
import { startServer, type TestServer } from '../helpers/server.js';

declare const document: any;

const VALUE = 'wandb-Xy7Qp3Lm9Rt2Vb8N';
const browser = sharedBrowser(t);
const ready = (page: Page, view: string) => page.waitForSelector(`main[data-state="ready"][data-view="${view}"]`);
const text = (page: Page, selector: string) => page.$eval(selector, (el) => el.textContent?.trim() ?? '');

async function submit(s: TestServer, extra: Record<string, unknown>): Promise<string> {
  const res = await s.call('POST', '/v1/workloads', {
    body: { requirements: { gpu: 'H100' }, outcome: {}, continuity: { mode: 'checkpointed', resume_on_interruption: true }, source: { image: 'python:3.11-slim', command: ['python', 'train.py'] }, ...extra },
    headers: { 'idempotency-key': `k-${Math.random()}` },
  });
  if (res.status !== 202) throw new Error(`submit: ${res.status} ${res.text}`);
  return res.body.id;
}

t.test('a run shows its connection and sweep; the sweep page lists its runs; no secret value on any page', async (t) => {
  const s = await startServer(t, { clock: 'manual' });
  await s.call('POST', '/v1/secrets', { body: { name: 'WANDB_API_KEY', value: VALUE } });
  await s.call('POST', '/v1/connections', { body: { name: 'wb', secret: 'WANDB_API_KEY', ...liveWandb } });
  await connect(s, 'warehouse');
  const first = await submit(s, { connections: ['wb'], sweep_id: 'lr-sweep' });
  await advance(s, 5);
  const second = await submit(s, { connections: ['wb'], sweep_id: 'lr-sweep' });
  const lone = await submit(s, {});
  await advance(s, 200);

  const { page, errors } = await openPage(t, browser);
  await page.goto(inspectorUrl(s, s.key));
  await ready(page, 'workloads');
  t.match(await text(page, `tr.workload-row[data-id="${first}"] td:nth-child(1)`), /sweep lr-sweep\s*connection wb/);
  t.notMatch(await text(page, `tr.workload-row[data-id="${lone}"] td:nth-child(1)`), /sweep|connection/, 'a run without either shows neither');

  await page.goto(inspectorUrl(s, s.key, second));
  await ready(page, 'run');
  t.equal(await text(page, '#run-connection'), 'wb');
  t.equal(await text(page, '#run-sweep'), 'lr-sweep');

  await page.click('#run-sweep');
  await ready(page, 'sweep');
  const runs = await page.$$eval('#sweep-runs tr.sweep-run', (rows) => rows.map((r) => r.getAttribute('data-id')));
  t.same(runs, [second, first], 'the sweep\'s runs, newest first');
  t.match(await text(page, '#sweep-counts'), /runs\s*2\s*running\s*2\s*succeeded\s*0\s*failed\s*0/);
  await page.click(`#sweep-runs tr.sweep-run[data-id="${first}"] a`);
  await ready(page, 'run');
  t.equal(await text(page, 'h1'), first, 'a run of the sweep opens');

  for (const view of ['workloads', 'requests']) {
    await page.goto(`${inspectorUrl(s, s.key)}&view=${view}`);
    await ready(page, view);
    const html = await page.evaluate(() => document.documentElement.outerHTML as string);
    t.notMatch(html, VALUE, `the ${view} view holds no secret value`);
    if (view === 'requests') t.match(html, /\/v1\/secrets/, 'the secret put is listed, its value redacted');
  }
  t.same(errors, [], 'no script error on the page');
});
