// `npm run bench:compare -- <baseline checkout> [<subject checkout>]`: the cold start of two built
// checkouts (their package.json bin; the subject is this one unless named), in alternating
// rounds of one run, each start on a fresh database. Two versions measured in separate
// `npm run bench` runs minutes apart differ by more than a change of a few per cent moves them;
// rounds of one run, compared round by round, do not.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MAIN, cliOf, mockArgs } from './children.js';
import { timeToReady, type Start } from './figures/cold-start.js';
import { markdownRows } from './report.js';
import { alternate, median } from './rounds.js';
import { readSettings } from './settings.js';

const [baselineArg, subjectArg] = process.argv.slice(2);
if (!baselineArg) {
  process.stderr.write('usage: npm run bench:compare -- <baseline checkout> [<subject checkout>, default this one]; BENCH_SHORT_ROUNDS rounds (31)\n');
  process.exit(2);
}
// More rounds than a figure of `npm run bench` takes: the median of per-round ratios is what settles.
const rounds = readSettings({ shortRounds: 31 }).shortRounds;

/** The CLI of a built checkout. */
function builtCli(checkout: string): string {
  const main = cliOf(resolve(checkout));
  if (!existsSync(main)) throw new Error(`${main} does not exist: run npm run build in ${resolve(checkout)}`);
  return main;
}
const baseline = builtCli(baselineArg);
const subject = subjectArg ? builtCli(subjectArg) : MAIN;

const dir = mkdtempSync(join(tmpdir(), 'nodus-mock-compare-'));
const load = [loadavg()[0]];
let n = 0;
const start = (main: string) => () => timeToReady(main, mockArgs(join(dir, `cold-${n++}.db`)));
let r: Record<'subject' | 'baseline', Start[]>;
try {
  r = await alternate(rounds, { subject: start(subject), baseline: start(baseline) });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
load.push(loadavg()[0]);

const parts: [string, (s: Start) => number][] = [
  ['spawn to `listening on`', (s) => s.listening],
  ['`listening on` to the first 200 on /readyz', (s) => s.ready - s.listening],
  ['spawn to the first 200 on /readyz', (s) => s.ready],
];
const ms = (v: number) => `${v.toFixed(1)} ms`;
const rows = parts.map(([label, of]) => {
  const s = r.subject.map(of);
  const b = r.baseline.map(of);
  return [label, ms(median(s)), ms(median(b)), `${(median(s) / median(b)).toFixed(3)}×`, `${median(s.map((v, i) => v / b[i])).toFixed(3)}×`];
});
process.stdout.write(
  `\nCold start, ${rounds} alternating rounds, Node ${process.version}, load average ${load.map((l) => l.toFixed(2)).join(' → ')}\n` +
    `subject:  ${subject}\nbaseline: ${baseline}\n\n` +
    `${markdownRows([['part', 'subject (median)', 'baseline (median)', 'ratio of medians', 'median of per-round ratios'], ...rows])}\n`,
);
