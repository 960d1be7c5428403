import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t from '../helpers/tap.js';
import { packageRoot } from '../../server/boot/package-info.js';

/**
 * The committed document is what users feed to their generators and linters: `redocly lint`
 * with the recommended rules (redocly.yaml) must find nothing in it, not even a warning.
 */

const root = packageRoot();
const cli = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin', 'cli.js');

interface Problem {
  ruleId: string;
  severity: string;
  message: string;
  location: { pointer: string }[];
}

function lint(file: string): { errors: number; warnings: number; problems: Problem[] } {
  const r = spawnSync(process.execPath, [cli, 'lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'json', '--max-problems', '10000'], {
    cwd: root,
    encoding: 'utf8',
    // No update check: the run stays offline.
    env: { ...process.env, REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
  });
  const report = JSON.parse(r.stdout) as { totals: { errors: number; warnings: number }; problems: Problem[] };
  return { ...report.totals, problems: report.problems };
}

const listed = (problems: Problem[]) => problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);

t.test('openapi/openapi.json passes redocly lint with the recommended rules: no error, no warning', async (t) => {
  const { errors, warnings, problems } = lint(join(root, 'openapi', 'openapi.json'));
  t.same(listed(problems), []);
  t.equal(errors, 0);
  t.equal(warnings, 0);
});

t.test('the lint reports what the document would lose', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'nodus-lint-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const doc = JSON.parse(readFileSync(join(root, 'openapi', 'openapi.json'), 'utf8'));
  delete doc.info.license;
  delete doc.paths['/_mock/reset'].post.operationId;
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  const { warnings, problems } = lint(file);
  t.equal(warnings, 2);
  t.same(problems.map((p) => p.ruleId).sort(), ['info-license', 'operation-operationId']);
});
