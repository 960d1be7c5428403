// Makes docs/inspector-run.png: the inspector's page of a seeded train run (recovered mid-training,
// 4 task events dropped) next to a running evaluate run, as Chromium draws it.
//   npm run build && node dist/scripts/screenshot-inspector.js [out.png]
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { inspectorUrl, launchBrowser, seedInspectorTenant } from '../test/helpers/inspector.js';
import { startServer } from '../test/helpers/server.js';

const out = process.argv[2] ?? fileURLToPath(new URL('../../docs/inspector-run.png', import.meta.url));
const cleanups: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => void cleanups.unshift(fn) };
try {
  const server = await startServer(t, { clock: 'manual' });
  const { train } = await seedInspectorTenant(server);
  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  await page.setViewport({ width: 1360, height: 1280, deviceScaleFactor: 1 });
  await page.goto(inspectorUrl(server, server.key, train));
  await page.waitForSelector('main[data-state="ready"] svg.chart path.line');
  await page.screenshot({ path: out as `${string}.png` });
  console.log(`${out}: ${Math.round(statSync(out).size / 1024)} KiB`);
} finally {
  for (const fn of cleanups) await fn();
}
