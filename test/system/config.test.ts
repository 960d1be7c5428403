import t from '../helpers/tap.js';
import { HELP_TEXT, OPTIONS, resolveCli } from '../../server/config.js';

const run = (argv: string[], env: Record<string, string> = {}) => {
  const r = resolveCli(argv, env);
  if (r.kind !== 'run') throw new Error(`expected run, got ${r.kind}`);
  return r.config;
};

t.test('defaults', async (t) => {
  const c = run([]);
  t.equal(c.host, '127.0.0.1');
  t.equal(c.port, 8080);
  t.equal(c.db, './data/nodus-mock.db');
  t.equal(c.keys, undefined);
  t.equal(c.clock, 'realtime');
  t.equal(c.timeScale, 60);
  t.equal(c.logLevel, 'info');
  t.equal(c.journalSize, 1000);
  t.equal(c.scenario, undefined);
});

t.test('flags override env, env overrides defaults', async (t) => {
  const env = { PORT: '9001', NODUS_MOCK_DB: '/tmp/env.db', NODUS_MOCK_CLOCK: 'manual', NODUS_MOCK_TIME_SCALE: '5' };
  const fromEnv = run([], env);
  t.equal(fromEnv.port, 9001);
  t.equal(fromEnv.db, '/tmp/env.db');
  t.equal(fromEnv.clock, 'manual');
  t.equal(fromEnv.timeScale, 5);
  const fromFlags = run(['--port', '9000', '--db=/tmp/x.db', '--clock', 'realtime'], env);
  t.equal(fromFlags.port, 9000);
  t.equal(fromFlags.db, '/tmp/x.db');
  t.equal(fromFlags.clock, 'realtime');
  t.equal(fromFlags.timeScale, 5, 'unflagged values still come from env');
  t.equal(run([], { PORT: '' }).port, 8080, 'an empty variable counts as unset');
});

t.test('strict keys: key and key=tenant', async (t) => {
  const c = run(['--keys', 'nk_live_a, other=team-1']);
  t.same(c.keys, [{ key: 'nk_live_a' }, { key: 'other', tenant: 'team-1' }]);
});

t.test('invalid values give a one-line reason naming the flag and variable', async (t) => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [['--port', 'abc'], {}, /--port \/ PORT/],
    [['--port', '70000'], {}, /--port \/ PORT/],
    [[], { NODUS_MOCK_CLOCK: 'sometimes' }, /--clock \/ NODUS_MOCK_CLOCK/],
    [['--time-scale', '0'], {}, /--time-scale/],
    [['--time-scale=-3'], {}, /--time-scale/],
    [['--log-level', 'loud'], {}, /--log-level \/ LOG_LEVEL/],
    [['--keys', 'a b'], {}, /--keys/],
    [['--keys', 'k=bad tenant'], {}, /--keys/],
    [['--keys', ','], {}, /--keys/],
    [['--nope'], {}, /nope/],
    [['--port'], {}, /port/],
    [['positional'], {}, /positional|Unexpected argument/],
  ];
  for (const [argv, env, pattern] of cases) {
    t.throws(() => resolveCli(argv, env), { name: 'ConfigError' }, `${argv.join(' ')} ${JSON.stringify(env)}`);
    try {
      resolveCli(argv, env);
    } catch (err) {
      t.match((err as Error).message, pattern);
      t.notMatch((err as Error).message, /\n/, 'one line');
    }
  }
});

t.test('--max-import-bytes is bounded at 1 GiB (an upload is held in memory)', async (t) => {
  t.throws(() => resolveCli(['--max-import-bytes', String(2 ** 30 + 1)], {}), { name: 'ConfigError', message: /^invalid --max-import-bytes \/ NODUS_MOCK_MAX_IMPORT_BYTES: / });
  t.equal(run(['--max-import-bytes', String(2 ** 30)]).maxImportBytes, 2 ** 30, '1 GiB itself is accepted');
});

t.test('a negative number gets the option\'s own message, whether or not it is joined with =', async (t) => {
  for (const argv of [['--port', '-1'], ['--port=-1']]) {
    t.throws(() => resolveCli(argv, {}), /^invalid --port \/ PORT: /, argv.join(' '));
  }
  t.throws(() => resolveCli(['--time-scale', '-3'], {}), /^invalid --time-scale \/ NODUS_MOCK_TIME_SCALE: /);
  t.throws(() => resolveCli(['--port', '--db'], {}), /ambiguous|argument missing|Option/, 'a flag after a flag is still refused');
});

t.test('--help keeps each flag apart from its text and shows each default once', async (t) => {
  for (const line of HELP_TEXT.split('\n')) {
    t.notMatch(line, /<value>\S/, `flag and text apart: ${line.trim()}`);
    t.ok((line.match(/\(default /g) ?? []).length <= 1, `one default: ${line.trim()}`);
  }
});

t.test('--help shows each default from the table, never from a help text', async (t) => {
  for (const o of Object.values(OPTIONS)) {
    t.notMatch(o.help, /\(default/, `--${o.flag}: its help says no default of its own`);
    const row = HELP_TEXT.slice(HELP_TEXT.indexOf(`--${o.flag} <value>`), HELP_TEXT.indexOf(`env ${o.env}\n`));
    t.match(row, o.default === undefined ? '(default: ' : `(default ${o.default}`, `--${o.flag}`);
  }
  t.match(HELP_TEXT, '(default 67108864 = 64 MiB)', 'a count of bytes also in binary units');
});

t.test('--help lists every flag and variable; --version is recognised', async (t) => {
  t.same(resolveCli(['--help'], {}), { kind: 'help' });
  t.same(resolveCli(['--version'], {}), { kind: 'version' });
  for (const o of Object.values(OPTIONS)) {
    t.match(HELP_TEXT, `--${o.flag}`);
    t.match(HELP_TEXT, o.env);
  }
});
