import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { advance, launchRun, lifecycleEvents } from './rl.js';
import type { Teardown, TestServer } from './server.js';

/** Debian's Chromium (`apt-get install chromium`); .ci/run installs it. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium with a profile of its own, closed and removed at teardown. A missing browser
 * throws: the inspector's tests fail rather than skip when it is not installed.
 */
export async function launchBrowser(t: Teardown): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no browser at ${CHROMIUM}: install it with \`apt-get install -y --no-install-recommends chromium\` (or set CHROMIUM_PATH)`);
  }
  const profile = mkdtempSync(join(tmpdir(), 'nodus-mock-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    userDataDir: profile,
    args: ['--no-sandbox', '--disable-gpu', '--headless', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  t.teardown(async () => {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  });
  return browser;
}

/**
 * One Chromium for a test file's tests, launched at the first page and closed when `root` (the
 * file's tap) is done: each test's page has a browser context of its own (openPage), as apart as
 * another browser, without another browser's start.
 */
export function sharedBrowser(root: Teardown): () => Promise<Browser> {
  let launched: Promise<Browser> | undefined;
  return () => (launched ??= launchBrowser(root));
}

/**
 * A new tab of the shared browser in a browser context of its own (its storage, cookies and
 * downloads apart from every other test's), closed at teardown; `errors` collects the page's
 * uncaught errors.
 */
export async function openPage(t: Teardown, browser: () => Promise<Browser>): Promise<{ page: Page; errors: string[] }> {
  const context = await (await browser()).createBrowserContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  return { page, errors };
}

/**
 * Lets the page's browser context save downloads into `folder`; `saved()` resolves with the path
 * of the first once Chromium has finished it (it writes to a temporary name and renames the file
 * when whole), as its download events say.
 */
export async function downloadsInto(page: Page, folder: string): Promise<{ saved: () => Promise<string> }> {
  const cdp = await page.browser().target().createCDPSession();
  const names = new Map<string, string>();
  const saved = new Promise<string>((resolve, reject) => {
    cdp.on('Browser.downloadWillBegin', (e) => names.set(e.guid, e.suggestedFilename));
    cdp.on('Browser.downloadProgress', (e) => {
      if (e.state === 'completed') resolve(join(folder, names.get(e.guid)!));
      else if (e.state === 'canceled') reject(new Error(`the download of ${names.get(e.guid)} was canceled`));
    });
  });
  // The browser outlives the test (sharedBrowser): its session is let go once the download ends.
  const detach = () => cdp.detach().catch(() => undefined);
  saved.then(detach, detach);
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: folder, eventsEnabled: true, browserContextId: page.browserContext().id });
  return { saved: () => saved };
}

/** The inspector's address for a key, opening one run when given. */
export const inspectorUrl = (s: { url: string }, key: string, workload?: string) =>
  `${s.url}/_mock/ui/#key=${encodeURIComponent(key)}${workload ? `&workload=${encodeURIComponent(workload)}` : ''}`;

export const TRAIN = { recipe_id: 'reasoning-gym-leg-counting', recipe_version: '1.0.0', mode: 'train', training_steps: 20 };
export const EVALUATE = { recipe_id: 'reasoning-gym-leg-counting', recipe_version: '1.0.0', mode: 'evaluate', evaluation_tasks: 32 };

/** Advances a minute at a time until the run has logged `steps` training steps (at most an hour). */
async function advanceToStep(s: TestServer, id: string, steps: number, key?: string) {
  for (let i = 0; i < 60; i++) {
    const done = (await lifecycleEvents(s, id, key)).filter((e) => e.event_type === 'rl.training_step').length;
    if (done >= steps) return;
    await advance(s, 60, key);
  }
  throw new Error(`${id} did not reach step ${steps}`);
}

/**
 * The tenant of issue 17's "done when": a train run recovered mid-training (replaying 5 task
 * events) with 4 events dropped, run to its end, and an evaluate run left running. Manual clock.
 */
export async function seedInspectorTenant(s: TestServer, key = s.key) {
  const control = async (method: string, path: string, body?: unknown) => {
    const res = await s.call(method, path, { body, key });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  await control('PUT', '/_mock/clock', { mode: 'manual' });
  // The first answer is lost after the commit; the retry with the same key is a replay.
  await control('POST', '/_mock/faults', { method: 'POST', path: '/v1/rl-runs', action: { type: 'drop_response' } });
  const preview = await control('POST', '/v1/rl-runs/preview', TRAIN);
  const launch = { ...preview.configuration, review_token: preview.review_token };
  const headers = { 'idempotency-key': 'train-recovered-001' };
  await s.call('POST', '/v1/rl-runs', { body: launch, headers, key }).then(
    (res) => { throw new Error(`the drop_response fault did not apply: ${res.status}`); },
    () => undefined);
  const retry = await s.call('POST', '/v1/rl-runs', { body: launch, headers, key });
  if (retry.status !== 202 || retry.headers.get('idempotent-replayed') !== 'true') throw new Error(`retry: ${retry.status} ${retry.text}`);
  const train = { id: retry.body.id as string };
  await advanceToStep(s, train.id, 8, key);
  await control('POST', `/_mock/workloads/${train.id}/recover`, { replay_last: 5 });
  await control('POST', `/_mock/workloads/${train.id}/drop-events`, { count: 4 });
  await advance(s, 2 * 3600, key);
  const evaluate = await launchRun(s, EVALUATE, 'evaluate-running-001', key);
  for (let i = 0; i < 30; i++) {
    const w = await control('GET', `/v1/workloads/${evaluate.id}`);
    const stage = w.stages?.[0];
    if (w.status === 'running' && stage?.completed_units > 0) break;
    await advance(s, 30, key);
  }
  return { train: train.id, evaluate: evaluate.id };
}
