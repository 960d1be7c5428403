import { Writable } from 'node:stream';
import t from '../helpers/tap.js';
import { resolveCli } from '../../server/config.js';
import { createLogger, type LogFormat } from '../../server/logger.js';

/** What one info line looks like through a stream that is, or is not, a terminal. */
function line(format: LogFormat, isTTY: boolean): string {
  let out = '';
  const stream = Object.assign(new Writable({ write(chunk, _enc, done) { out += chunk; done(); } }), { isTTY });
  createLogger('info', stream as unknown as NodeJS.WriteStream, format).info({ tenant: 'tn_1' }, 'hello');
  return out;
}
const isJson = (text: string) => {
  try {
    return JSON.parse(text).msg === 'hello';
  } catch {
    return false;
  }
};

t.test('a terminal gets readable lines; pipes, files and --log-format json get JSON lines', async (t) => {
  const readable = line('auto', true);
  t.notOk(isJson(readable), 'auto on a terminal: not JSON');
  t.match(readable, /INFO.*hello/);
  t.match(readable, /tenant.*tn_1/, 'the fields are there');
  t.ok(isJson(line('auto', false)), 'auto on a pipe or a file: JSON');
  t.ok(isJson(line('json', true)), 'json on a terminal: JSON all the same');
  t.notOk(isJson(line('pretty', false)), 'pretty wherever it is asked for');
});

t.test('--log-format and NODUS_MOCK_LOG_FORMAT take auto, json or pretty', async (t) => {
  const format = (argv: string[], env: Record<string, string> = {}) => {
    const r = resolveCli(argv, env);
    return r.kind === 'run' ? r.config.logFormat : undefined;
  };
  t.equal(format([]), 'auto');
  t.equal(format(['--log-format', 'json']), 'json');
  t.equal(format([], { NODUS_MOCK_LOG_FORMAT: 'pretty' }), 'pretty');
  t.throws(() => resolveCli(['--log-format', 'yaml'], {}), { message: /invalid --log-format \/ NODUS_MOCK_LOG_FORMAT/ });
});
