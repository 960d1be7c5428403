import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { packageRoot } from '../../server/boot/package-info.js';
import { MAIN } from '../helpers/cli.js';

const python = spawnSync('python3', ['--version']).status === 0;

/**
 * The README's pytest fixture, run for real by python3. pytest itself is not installed here, so a
 * stand-in module gives `pytest.fixture` and a monkeypatch; the fixture code is the shipped file.
 */
const DRIVER = `
import os, sys, json, urllib.request
sys.path.insert(0, sys.argv[1])
import conftest

class MonkeyPatch:
    def setenv(self, name, value):
        os.environ[name] = value

folders = []
mkdtemp = conftest.tempfile.mkdtemp
conftest.tempfile.mkdtemp = lambda **kw: folders.append(mkdtemp(**kw)) or folders[-1]
session = conftest.nodus_mock_url()
url = next(session)
mock = conftest.nodus_mock(url, MonkeyPatch())
assert os.environ["NODUS_BASE_URL"] == url and os.environ["NODUS_API_KEY"] == mock.api_key
me = urllib.request.urlopen(urllib.request.Request(url + "/v1/me", headers={"Authorization": "Bearer " + os.environ["NODUS_API_KEY"]}))
before = mock.control("GET", "/_mock/clock")["now"]
after = mock.advance(3600)
rule = mock.fault({"method": "GET", "path": "/v1/rl-recipes", "action": {"type": "error", "status": 429, "error": "rate_limited", "retry_after": 1}})
journal = mock.requests(path="/v1/me")
link = mock.inspector("wl_example")
page = urllib.request.urlopen(link.split("#")[0])
print(json.dumps({"me": me.status, "before": before, "after": after, "rule": rule["id"], "journal": len(journal),
                  "key": mock.api_key, "url": url, "link": link, "page": page.status}))
session.close()
import time
time.sleep(0.5)
try:
    urllib.request.urlopen(url + "/healthz", timeout=2)
    gone = False
except Exception:
    gone = True
print(json.dumps({"server_gone": gone, "folder_gone": not os.path.exists(folders[0])}))
`;

const STUB_PYTEST = `
def fixture(*args, **kwargs):
    if args and callable(args[0]):
        return args[0]
    return lambda f: f
`;

t.test('the pytest fixture in examples/pytest starts the mock, points the SDK at it, stops it', { skip: !python && 'no python3' }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'nodus-mock-pytest-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'pytest.py'), STUB_PYTEST);
  writeFileSync(join(dir, 'driver.py'), DRIVER);
  const r = spawnSync('python3', [join(dir, 'driver.py'), join(packageRoot(), 'examples', 'pytest')], {
    encoding: 'utf8',
    // A wrapper shell that stays the parent, as npx does: stopping it alone would orphan the server.
    env: { ...process.env, PYTHONPATH: dir, NODUS_MOCK_CMD: `sh -c '"$0" "$@"; exit $?' ${process.execPath} ${MAIN}` },
    timeout: 60_000,
  });
  t.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  const out = JSON.parse(lines[lines.length - 2]);
  t.same(JSON.parse(lines[lines.length - 1]), { server_gone: true, folder_gone: true }, 'the session stops the server under its wrapper and removes its folder');
  t.equal(out.me, 200);
  t.equal(Date.parse(out.after) - Date.parse(out.before), 3_600_000, 'advance moved the tenant clock');
  t.match(out.rule, /./, 'fault() returns the stored rule');
  t.equal(out.journal, 1, 'requests() reads the journal');
  t.equal(out.link, `${out.url}/_mock/ui/#key=${out.key}&workload=wl_example`, 'inspector() links to the run');
  t.equal(out.page, 200, 'and the link opens the inspector');
  t.match(r.stdout, `nodus-mock inspector: ${out.url}/_mock/ui/#key=${out.key}\n`, 'the fixture prints the tenant\'s link');
});
