import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from '../helpers/tap.js';
import { packageRoot } from '../../server/boot/package-info.js';
import { WRAPPED_SERVER, junitCases, pluginVenv, pythonMissing } from '../helpers/python.js';

// Creating the venv and the plugin's own suite (a pytest subprocess per case) take a minute or two.
t.setTimeout(600_000);

const missing = pythonMissing();

/**
 * python/tests, the plugin's own pytester suite, in a fresh venv with the package installed by pip,
 * against the built server started through a wrapper shell: the client's every method, the plugin
 * in pytest subprocesses, and examples/pytest as its author runs it. Each pytest case is one
 * assertion here; the cases that need a server feature this build lacks skip, saying so.
 */
t.test('the pytest plugin, installed by pip, passes its own suite against the built server', { skip: missing }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'nodus-mock-pytest-plugin-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { python, source } = pluginVenv(dir);
  const junit = join(dir, 'junit.xml');
  const r = spawnSync(python, ['-m', 'pytest', join(source, 'tests'), '-p', 'no:cacheprovider', '-q', '-rs', `--junitxml=${junit}`], {
    cwd: dir,
    encoding: 'utf8',
    // The checkout: the suite runs examples/pytest from it (serially with its failure, and under xdist).
    env: { ...process.env, NODUS_MOCK_CMD: WRAPPED_SERVER, NODUS_MOCK_CHECKOUT: packageRoot(), PYTEST_ADDOPTS: '' },
    timeout: 540_000,
  });
  const cases = junitCases(readFileSync(junit, 'utf8'));
  t.ok(cases.length >= 10, `${cases.length} cases ran`);
  for (const c of cases) {
    if (c.outcome === 'skipped') t.pass(c.name, { skip: c.detail });
    else t.equal(c.outcome, 'passed', c.name, { detail: c.detail });
  }
  t.equal(r.status, 0, 'pytest exits 0', { stdout: r.stdout, stderr: r.stderr });
});
