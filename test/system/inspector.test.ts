// The inspector at /_mock/ui, driven in Debian's Chromium through puppeteer-core: what a person
// sees and presses. A missing browser fails these tests (test/helpers/inspector.ts).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import t from '../helpers/tap.js';
import type { Page } from 'puppeteer-core';
import { ingest, submitCustom } from '../helpers/evidence.js';
import { downloadsInto, EVALUATE, inspectorUrl, openPage, sharedBrowser, TRAIN } from '../helpers/inspector.js';
import { advance, launchRun } from '../helpers/rl.js';
import { startServer, tempDbPath } from '../helpers/server.js';

// Functions given to page.evaluate run in the page; this module is compiled without the DOM's types.
declare const document: any;
declare const sessionStorage: any;

const browser = sharedBrowser(t);
const ready = (page: Page, view: string) => page.waitForSelector(`main[data-state="ready"][data-view="${view}"]`);
const text = (page: Page, selector: string) => page.$eval(selector, (el) => el.textContent?.trim() ?? '');

/** Waits until the run page, read again after an action, shows `status`; else says what it shows. */
async function statusIs(page: Page, status: string) {
  try {
    await page.waitForFunction((s) => document.querySelector('main[data-state="ready"] #run-status')?.textContent === s, { timeout: 15_000 }, status);
  } catch (err) {
    const shown = await page.evaluate(() => ({
      status: document.querySelector('#run-status')?.textContent,
      state: document.querySelector('main')?.dataset.state,
      notice: document.querySelector('#notice')?.textContent,
    }));
    throw new Error(`the run page never showed ${status}: ${JSON.stringify(shown)} (${(err as Error).message})`);
  }
}

t.test('workloads, a run with its charts, the clock, a lever and the journal, in Chromium', async (t) => {
  const s = await startServer(t, { clock: 'manual' });
  // 50 steps: still training after the 20 minutes this test advances.
  const { id } = await launchRun(s, { ...TRAIN, training_steps: 50 }, 'inspector-train-001');
  const { page, errors } = await openPage(t, browser);

  await page.goto(inspectorUrl(s, s.key));
  await ready(page, 'workloads');
  t.notMatch(page.url(), /key=/, 'the key leaves the address bar');
  t.equal(await page.evaluate(() => sessionStorage.getItem('nodus-mock-inspector-key')), s.key, 'and stays in the tab');
  const row = `tr.workload-row[data-id="${id}"]`;
  t.equal(await text(page, `${row} td:nth-child(2)`), 'accepted');
  t.equal(await text(page, `${row} td:nth-child(3)`), 'reasoning-gym-leg-counting@1.0.0');
  t.equal(await text(page, `${row} td:nth-child(4)`), 'train');
  t.equal(await text(page, `${row} td:nth-child(8)`), 'inspector-train-001', 'the idempotency key, from the journal');

  await page.click(`${row} a`);
  await ready(page, 'run');
  t.equal(await text(page, '#run-status'), 'accepted');

  // +10 minutes of virtual time: provisioned, baseline done, training under way.
  await page.click('button.advance[data-seconds="600"]');
  await statusIs(page, 'running');
  const points = await page.$eval('svg.chart[data-metric="reward_mean"] path.line', (p) => ({
    n: Number(p.getAttribute('data-points')),
    segments: (p.getAttribute('d') ?? '').match(/L/g)?.length ?? 0,
  }));
  t.ok(points.n >= 3, `reward_mean has ${points.n} steps`);
  t.equal(points.segments, points.n - 1, 'the path joins every point');
  for (const metric of ['loss', 'kl']) t.ok(await page.$(`svg.chart[data-metric="${metric}"] path.line`), `${metric} is drawn`);
  t.ok(await page.$('svg.timeline rect[data-status="running"]'), 'the timeline shows the running span');
  t.match(await text(page, '#clock-now'), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

  // A lever: recover into generation 2, then let it run on.
  await page.click('#lever-recover');
  await statusIs(page, 'recovering');
  await page.click('button.advance[data-seconds="600"]');
  await statusIs(page, 'running');
  t.match(await text(page, '#lifecycle'), /generation 2/, 'the timeline marks the recovery');
  t.ok(await page.$('svg.chart[data-metric="loss"] line.break'), 'the charts mark where generation 2 began');
  const routing = await s.call('GET', `/v1/workloads/${id}/routing`);
  t.equal(routing.body.placements.length, 2, 'the server recovered the run');

  // The journal: what the test's client sent, not the inspector's own reads.
  await page.click('nav a[data-view="requests"]');
  await ready(page, 'requests');
  const journal = await page.$$eval('#journal tr.request-row', (rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent?.trim())));
  t.ok(journal.some((r) => r[2] === 'POST' && r[3] === '/v1/rl-runs' && r[4] === '202' && r[5] === 'inspector-train-001'), 'the launch is listed');
  const server = await s.call('GET', '/_mock/requests?limit=1000');
  const own = server.body.requests.filter((r: any) => r.request_id.startsWith('inspector.'));
  t.ok(own.length > 0, 'the inspector\'s reads are journaled, marked by their request id');
  t.equal(journal.length, server.body.requests.length - own.length, 'and hidden by default');
  t.match(await text(page, 'main'), new RegExp(`${own.length} of the inspector's own reads hidden`));

  // Cancel from the run page.
  await page.goto(inspectorUrl(s, s.key, id));
  await ready(page, 'run');
  await page.click('#lever-cancel');
  await statusIs(page, 'cancelled');
  t.equal((await s.call('GET', `/v1/workloads/${id}`)).body.status, 'cancelled');
  t.same(errors, [], 'no script error on the page');
});

t.test('a fault rule added and removed from the page', async (t) => {
  const s = await startServer(t, { clock: 'manual' });
  const { page } = await openPage(t, browser);
  await page.goto(`${inspectorUrl(s, s.key)}&view=faults`);
  await ready(page, 'faults');
  await page.$eval('#fault-form input[name="path"]', (el) => { (el as any).value = ''; });
  await page.type('#fault-form input[name="path"]', '/v1/rl-recipes');
  await page.select('#fault-form select[name="method"]', 'GET');
  await page.$eval('#fault-form input[name="retry_after"]', (el) => { (el as any).value = '2'; });
  await page.click('#fault-add');
  await page.waitForSelector('main[data-state="ready"] #faults tr.fault-row');
  const rules = (await s.call('GET', '/_mock/faults')).body.faults;
  t.equal(rules.length, 1);
  t.match(rules[0], { method: 'GET', path: '/v1/rl-recipes', times: 1, after: 0, action: { type: 'error', status: 503, retry_after: 2 } });
  t.match(await text(page, '#faults'), /error 503 service_unavailable, Retry-After 2/);

  // The rule acts on /v1 as any rule does.
  const refused = await s.call('GET', '/v1/rl-recipes');
  t.equal(refused.status, 503);
  t.equal(refused.headers.get('retry-after'), '2');

  await page.click('button.fault-delete');
  await page.waitForSelector('main[data-state="ready"] #no-faults');
  t.same((await s.call('GET', '/_mock/faults')).body.faults, []);
});

t.test('workload rules beside the faults with what each did to the runs it bound; a run marks the interventions a rule made', async (t) => {
  const s = await startServer(t, { clock: 'manual' });
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await s.call(method, path, { body });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const rule = async (body: unknown) => (await control('POST', '/_mock/workload-rules', body)).id as string;
  const recovers = await rule({ match: { mode: 'train' }, at: { phase: 'training', step: 3 }, action: [{ type: 'recover', replay_last: 2 }, { type: 'drop_events', count: 1 }] });
  const fails = await rule({ match: { mode: 'evaluate' }, at: { reads: 1 }, action: { type: 'fail', reason: 'scripted' } });
  const never = await rule({ match: { mode: 'evaluate' }, at: { phase: 'training' }, action: { type: 'recover' } });
  const train = (await launchRun(s, { ...TRAIN, training_steps: 50 })).id;
  const evaluate = (await launchRun(s, EVALUATE)).id;
  await control('GET', `/v1/workloads/${evaluate}/rl-events`);
  await control('POST', '/_mock/clock/advance', { until: { rule: recovers } });
  await control('POST', '/_mock/clock/advance', { until: { workload_id: train, status: 'running' } });
  // A recovery by hand on the same run, which no rule made, must stay unmarked.
  await advance(s, 300);
  await control('POST', `/_mock/workloads/${train}/recover`, {});
  await advance(s, 300);
  // The rule the failure left without a trigger is noted as skipped when the ended run is next read.
  await control('GET', `/v1/workloads/${evaluate}`);

  const { page, errors } = await openPage(t, browser);
  await page.goto(`${inspectorUrl(s, s.key)}&view=faults`);
  await ready(page, 'faults');
  const row = (id: string) => `#workload-rules tr.workload-rule-row[data-id="${id}"]`;
  const counts = (id: string) => page.$$eval(`${row(id)} td.num`, (cells) => cells.map((c) => c.textContent));
  t.same(await counts(recovers), ['1', '1', '0', '1', '0'], 'matched, bound, pending, applied, skipped');
  t.same(await counts(fails), ['1', '1', '0', '1', '0']);
  t.same(await counts(never), ['1', '1', '0', '0', '1']);
  t.equal(await text(page, `${row(recovers)} td:nth-child(2)`), 'mode train');
  t.equal(await text(page, `${row(recovers)} td:nth-child(3)`), 'phase training step 3');
  t.equal(await text(page, `${row(recovers)} td:nth-child(4)`), 'recover, replaying 2 + drop 1 event');
  t.equal(await text(page, `${row(recovers)} td:nth-child(5)`), 'api');
  t.equal(await text(page, `${row(fails)} td:nth-child(4)`), 'fail: scripted');
  t.ok(await page.$(`${row(fails)} .binding[data-workload="${evaluate}"][data-state="applied"]`), 'the run it bound, applied');
  t.match(await text(page, `${row(never)} .binding[data-workload="${evaluate}"][data-state="skipped"]`), /skipped .*the run ended \(failed\) before phase training/);

  // The run the recovering rule bound, through its link.
  await page.click(`${row(recovers)} .binding[data-workload="${train}"] a`);
  await ready(page, 'run');
  t.equal(await text(page, 'h1'), train);
  const runRule = `#run-rules tr.run-rule[data-id="${recovers}"]`;
  await page.waitForSelector(runRule);
  await page.waitForSelector(`#lifecycle tr[data-rule="${recovers}"]`);
  await page.waitForSelector(`svg.timeline line.marker-recovered[data-rule="${recovers}"]`);
  t.match(await text(page, `${runRule} td:nth-child(4)`), /^applied \d{4}-/);
  t.equal(await text(page, `${runRule} td:nth-child(5)`), 'workload.status recovering, workload.recovered (generation 2)');
  const recoveries = await page.$$eval('svg.timeline line.marker-recovered', (lines) => lines.map((l) => l.getAttribute('data-rule')));
  t.same(recoveries, [recovers, null], 'the rule\'s recovery is marked, the one by hand is not');
  t.match(await text(page, 'svg.timeline'), new RegExp(`generation 2 · ${recovers}`));
  t.ok(await page.$(`svg.timeline rect[data-status="recovering"][data-rule="${recovers}"]`), 'the recovering span it began');
  const marked = await page.$$eval('#lifecycle tr[data-rule]', (rows) => rows.map((r) => [r.getAttribute('data-rule'), r.querySelectorAll('td')[3].textContent]));
  t.same(marked, [[recovers, `workload.status rule ${recovers}`], [recovers, `workload.recovered rule ${recovers}`]]);

  await page.goto(inspectorUrl(s, s.key, evaluate));
  await ready(page, 'run');
  // Each section of a run page fills in as its own read returns: the rules' after the page is ready.
  await page.waitForSelector(`#run-rules tr.run-rule[data-id="${never}"]`);
  await page.waitForSelector(`#lifecycle tr[data-rule="${fails}"]`);
  t.equal(await text(page, '#run-status'), 'failed');
  t.same(await page.$$eval('#run-rules tr.run-rule', (rows) => rows.map((r) => [r.getAttribute('data-id'), r.getAttribute('data-state')])),
    [[fails, 'applied'], [never, 'skipped']], 'both rules that bound the run, with what became of each');
  t.same(await page.$$eval('#lifecycle tr[data-rule] td:nth-child(4)', (cells) => cells.map((c) => c.textContent)),
    [`workload.status rule ${fails}`, `workload.failed rule ${fails}`], 'the failure is the rule\'s');

  // Removing from the page.
  await page.goto(`${inspectorUrl(s, s.key)}&view=faults`);
  await ready(page, 'faults');
  await page.click('#workload-rules-clear');
  await page.waitForSelector('main[data-state="ready"] #no-workload-rules');
  t.same((await s.call('GET', '/_mock/workload-rules')).body.rules, []);
  t.same(errors, [], 'no script error on the page');
});

t.test('without a key in the link the page asks for one; a key the server refuses asks again', async (t) => {
  const s = await startServer(t, { keys: [{ key: 'nk_test_inspector_strict', tenant: 'inspected' }] });
  const { page } = await openPage(t, browser);
  // The slashless address redirects; the page's own URLs resolve under /_mock/ui/.
  await page.goto(`${s.url}/_mock/ui`);
  await page.waitForSelector('main[data-state="key"] form.keyform');
  t.equal(new URL(page.url()).pathname, '/_mock/ui/');

  await page.type('form.keyform input[name="key"]', 'nk_test_not_this_one');
  await page.click('form.keyform button[type="submit"]');
  await page.waitForFunction(() => document.querySelector('form.keyform .error')?.textContent?.includes('does not accept'));
  await page.type('form.keyform input[name="key"]', 'nk_test_inspector_strict');
  await page.click('form.keyform button[type="submit"]');
  await ready(page, 'workloads');
  t.equal(await text(page, '#tenant'), 'tenant inspected');
  t.ok(await page.$('#no-workloads'));
});

t.test('a run of 100,000 task events opens with one page of them, and pages on by cursor', async (t) => {
  const s = await startServer(t, { clock: 'manual' });
  const id = await submitCustom(s, 'evaluate');
  const BATCH = 5000;
  for (let b = 0; b < 100_000 / BATCH; b++) {
    const events = Array.from({ length: BATCH / 2 }, (_, i) => {
      const n = b * BATCH + i * 2;
      const task = `t${n / 2}`;
      return [
        { event_id: `s${n}`, phase: 'evaluation', task_id: task, attempt: 1, kind: 'task_started' },
        { event_id: `c${n}`, phase: 'evaluation', task_id: task, attempt: 1, kind: 'task_completed', outcome: n % 4 ? 'passed' : 'failed', reward: n % 4 ? 1 : 0 },
      ];
    }).flat();
    const res = await ingest(s, id, events);
    if (res.status !== 200 || res.body.accepted !== BATCH) throw new Error(`ingest: ${res.status} ${res.text.slice(0, 200)}`);
  }

  const { page } = await openPage(t, browser);
  const reads: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/rl-events')) reads.push(r.url());
  });
  const started = Date.now();
  await page.goto(inspectorUrl(s, s.key, id));
  await ready(page, 'run');
  t.comment(`the run page of 100,000 events was ready after ${Date.now() - started} ms`);
  t.equal(reads.length, 1, 'one page of task events is read');
  t.match(reads[0], /limit=50(&|$)/);
  const firstIds = await page.$$eval('#evidence tbody tr td:first-child', (cells) => cells.map((c) => c.textContent));
  t.equal(firstIds.length, 50);
  const phases = await page.$$eval('#comparison tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
  t.same(phases.find((r) => r[0] === 'evaluation')?.slice(0, 4), ['evaluation', '50000', '50000', '25000'], 'the summary counts every attempt');

  await page.click('#evidence-next');
  await page.waitForFunction((first) => document.querySelector('#evidence tbody tr td')?.textContent !== first, {}, firstIds[0]);
  const nextIds = await page.$$eval('#evidence tbody tr td:first-child', (cells) => cells.map((c) => Number(c.textContent)));
  t.equal(nextIds.length, 50);
  t.equal(nextIds[0], Number(firstIds[49]) + 1, 'the next page starts after the last row shown');
  t.match(await text(page, '#evidence-counters'), /^page 2 /);
  t.equal(reads.length, 2);
  await page.click('#evidence-back');
  await page.waitForFunction((first) => document.querySelector('#evidence tbody tr td')?.textContent === first, {}, firstIds[0]);
});

t.test('an output downloads through the key, with the bytes its SHA-256 names', async (t) => {
  const s = await startServer(t, { clock: 'manual' });
  const { id } = await launchRun(s, EVALUATE);
  await advance(s, 2 * 3600);
  const { page } = await openPage(t, browser);
  const downloads = await downloadsInto(page, dirname(tempDbPath(t)));
  await page.goto(inspectorUrl(s, s.key, id));
  await ready(page, 'run');
  const outputs = await page.$$eval('#outputs tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
  const results = outputs.find((r) => r[0] === 'results.json');
  t.ok(results, 'results.json is listed');
  t.match(results![3], /^[0-9a-f]{64}$/);
  await page.click(`#outputs tbody tr:nth-child(${outputs.indexOf(results!) + 1}) button.download`);
  const file = await downloads.saved();
  t.equal(basename(file), 'results.json', 'saved under the output\'s name');
  t.equal(createHash('sha256').update(readFileSync(file)).digest('hex'), results![3], 'the saved file is the output');
});

t.test('"download snapshot" saves the tenant\'s document, which restores into a fresh server', async (t) => {
  const s = await startServer(t, { clock: 'manual' });
  const { id } = await launchRun(s, EVALUATE);
  await advance(s, 120);
  const { page } = await openPage(t, browser);
  const downloads = await downloadsInto(page, dirname(tempDbPath(t)));
  await page.goto(inspectorUrl(s, s.key));
  await ready(page, 'workloads');
  await page.click('#snapshot');
  const tenant = (await s.call('GET', '/v1/me')).body.tenant;
  const file = await downloads.saved();
  t.equal(basename(file), `nodus-mock-snapshot-${tenant}.json`, 'saved under the tenant\'s name');
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  t.match(saved, { format: 'nodus-mock.snapshot', version: 4, tenant: { id: tenant } });
  // Under the same key, so the same tenant and the same ids.
  const fresh = await startServer(t, { clock: 'manual' });
  t.equal((await fresh.call('PUT', '/_mock/snapshot', { body: saved, key: s.key })).status, 200);
  t.same((await fresh.call('GET', `/v1/workloads/${id}`, { key: s.key })).body.status, (await s.call('GET', `/v1/workloads/${id}`)).body.status);
});
