import { randomBytes, createHash } from 'node:crypto';
import t from '../helpers/tap.js';
import { startCli } from '../helpers/cli.js';
import { call, tempDbPath } from '../helpers/server.js';

const KEY = 'nk_test_durable';

t.test('an upload answered 201 survives kill -9 and a restart, bytes and all', async (t) => {
  const db = tempDbPath(t);
  const data = randomBytes(5 * 1024 * 1024 + 123);
  const first = startCli(['--port', '0', '--db', db]);
  const { url } = await first.ready;
  const res = await call(url, 'POST', '/v1/assets/upload?name=weights.bin', KEY, { raw: data, headers: { 'content-type': 'application/octet-stream' } });
  t.equal(res.status, 201);
  first.child.kill('SIGKILL');
  await first.exited;

  const second = startCli(['--port', '0', '--db', db]);
  t.teardown(() => {
    second.child.kill('SIGKILL');
  });
  const { url: again } = await second.ready;
  const read = await call(again, 'GET', `/v1/assets/${res.body.id}`, KEY);
  t.same(read.body, res.body);
  const content = await fetch(`${again}/_mock/assets/${res.body.id}/content`, { headers: { authorization: `Bearer ${KEY}` } });
  const bytes = Buffer.from(await content.arrayBuffer());
  t.equal(bytes.length, data.length);
  t.equal(createHash('sha256').update(bytes).digest('hex'), res.body.sha256, 'the same bytes, in more than one stored part');
});
