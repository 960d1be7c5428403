// `npm run bench`: every figure of issue 9 as a ratio against a baseline measured in the same
// run, printed as a table and written with every raw round to bench/results.json.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../server/boot/package-info.js';
import type { Context, FigureRun } from './context.js';
import { advanceStall } from './figures/advance.js';
import { archives } from './figures/archives.js';
import { budget } from './figures/budget.js';
import { coldStart } from './figures/cold-start.js';
import { launches } from './figures/launch.js';
import { materialise } from './figures/materialise.js';
import { memory } from './figures/memory.js';
import { recipes } from './figures/recipes.js';
import { rlEvents } from './figures/rl-events.js';
import { snapshot } from './figures/snapshot.js';
import { upload } from './figures/upload.js';
import { webhookFairness } from './figures/webhook-fairness.js';
import { webhooks } from './figures/webhooks.js';
import { markdownTable } from './report.js';
import type { Figure } from './rounds.js';
import { seedDeepWorkload, type DeepWorkload } from './seed.js';
import { readSettings } from './settings.js';

/** In run order; BENCH_ONLY picks by these names. */
const FIGURES: Record<string, FigureRun> = {
  'cold-start': coldStart,
  recipes,
  launch: launches,
  budget,
  'rl-events': rlEvents,
  materialise,
  memory,
  upload,
  archives,
  webhooks,
  'webhook-fairness': webhookFairness,
  snapshot,
  advance: advanceStall,
};

const settings = readSettings();
const unknown = settings.only.filter((id) => !(id in FIGURES));
if (unknown.length) throw new Error(`BENCH_ONLY: no figure ${unknown.join(', ')} (figures: ${Object.keys(FIGURES).join(', ')})`);

const dir = mkdtempSync(join(tmpdir(), 'nodus-mock-bench-'));
const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
let deep: Promise<DeepWorkload> | undefined;
const ctx: Context = { settings, dir, log, deep: () => (deep ??= seedDeepWorkload(dir, settings.events, log)) };

const started = new Date();
const load = [loadavg()];
const figures: Figure[] = [];
try {
  for (const [id, run] of Object.entries(FIGURES)) {
    if (settings.only.length && !settings.only.includes(id)) continue;
    log(`${id}: running (load average ${loadavg()[0].toFixed(2)})`);
    const done = await run(ctx);
    for (const f of done) log(`${f.id}: ${f.subject.median.toFixed(2)} vs ${f.baseline.median.toFixed(2)} ${f.unit} = ${f.ratio.toFixed(2)}×${f.pass === undefined ? '' : f.pass ? ' pass' : ' MISS'}`);
    figures.push(...done);
    load.push(loadavg());
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const machine = {
  cpus: cpus().length,
  cpu_model: cpus()[0]?.model,
  memory_gib: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
};
const results = {
  started_at: started.toISOString(),
  finished_at: new Date().toISOString(),
  command: 'npm run bench',
  settings,
  machine,
  /** 1-minute load averages at the start and after each figure: how busy the shared machine was. */
  load_averages: load.map((l) => l[0]),
  figures,
};
writeFileSync(join(packageRoot(), 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);

const scored = figures.filter((f) => f.pass !== undefined);
process.stdout.write(
  `\nnodus-mock benchmarks, ${started.toISOString().slice(0, 10)}, Node ${process.version}, ${machine.cpus} cores (${machine.cpu_model}), ` +
    `load average ${load.map((l) => l[0].toFixed(2)).join(' → ')}\n` +
    `${settings.rounds} rounds per figure (cold start and materialise ${settings.shortRounds}), medians; ratio = subject / baseline\n\n` +
    `${markdownTable(figures)}\n\n${scored.filter((f) => f.pass).length} of ${scored.length} targets met; raw rounds in bench/results.json\n`,
);
