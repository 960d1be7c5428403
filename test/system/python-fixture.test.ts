import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { packageRoot } from '../../server/boot/package-info.js';
import { WRAPPED_SERVER, junitCases, pluginVenv, pythonMissing } from '../helpers/python.js';

t.setTimeout(300_000);

/** A test a user adds to examples/pytest that fails after talking to the mock. */
const FAILING = `
import os, urllib.request

def test_fails(nodus_mock):
    request = urllib.request.Request(os.environ["NODUS_BASE_URL"] + "/v1/me", headers={"Authorization": "Bearer " + os.environ["NODUS_API_KEY"]})
    urllib.request.urlopen(request).read()
    open("key", "w").write(nodus_mock.api_key)
    assert False
`;

/**
 * examples/pytest as a user runs it: the plugin installed by pip into a fresh venv, no conftest,
 * the SDK absent (it cannot be installed offline here), plus one failing test of the user's.
 */
t.test('examples/pytest runs on the installed plugin, and a failing test reports its link and snapshot', { skip: pythonMissing() }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'nodus-mock-example-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { python } = pluginVenv(dir);
  // The example names a shipped scenario by a path relative to itself: copy both, keeping the layout.
  const project = join(dir, 'examples', 'pytest');
  cpSync(join(packageRoot(), 'examples', 'pytest'), project, { recursive: true, filter: (p) => !p.includes('__pycache__') });
  cpSync(join(packageRoot(), 'scenarios'), join(dir, 'scenarios'), { recursive: true });
  t.notOk(existsSync(join(project, 'conftest.py')), 'the project has no conftest');
  writeFileSync(join(project, 'test_user_failure.py'), FAILING);

  const r = spawnSync(python, ['-m', 'pytest', '-rs', '--junitxml=junit.xml'], {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, NODUS_MOCK_CMD: WRAPPED_SERVER, PYTEST_ADDOPTS: '' },
    timeout: 240_000,
  });
  t.equal(r.status, 1, 'pytest reports the one failure');
  const cases = Object.fromEntries(junitCases(readFileSync(join(project, 'junit.xml'), 'utf8')).map((c) => [c.name, c]));
  t.equal(cases.test_the_third_launch_replays_the_first?.outcome, 'passed', 'the scenario marker test passes', { detail: r.stdout });
  t.equal(cases.test_fails?.outcome, 'failed');
  t.match(r.stdout, /SKIPPED \[1\] test_example\.py:\d+: the Nodus SDK is not installed \(pip install nodus-compute\)/);

  const section = /-+ nodus-mock -+\n([\s\S]*?)\n=+ /.exec(r.stdout)?.[1] ?? '';
  const key = readFileSync(join(project, 'key'), 'utf8');
  t.match(section, new RegExp(`^inspector: http://127\\.0\\.0\\.1:\\d+/_mock/ui/#key=${key}\n`), 'the section opens with the tenant\'s inspector link');
  t.match(section, 'journal (last 1, oldest first):\n  GET /v1/me 200\n');
  const snapshot = /^snapshot: (.*)$/m.exec(section)?.[1] ?? '';
  if (snapshot.startsWith('could not be taken')) {
    t.match(snapshot, 'no GET /_mock/snapshot (404 not_found)', 'a server without snapshots is named as such');
  } else {
    t.equal(snapshot, join(project, '.pytest_cache', 'd', 'nodus-mock', `test_user_failure.py_test_fails-${snapshot.slice(-13, -5)}.json`));
    t.equal(JSON.parse(readFileSync(snapshot, 'utf8')).format, 'nodus-mock.snapshot', 'the snapshot is written under the pytest cache');
    t.match(section, `\n  open it: npx nodus-mock --restore ${snapshot} --restore-key ${key}   (then the inspector link it prints)`,
      'the command to open it restores under the test\'s key, so its inspector link shows the test\'s ids');
  }
  t.equal(r.stdout.match(/- nodus-mock -/g)?.length, 1, 'passing tests get no section');
});
