// Throughput baseline: Fastify with nothing but the work a route cannot avoid. GET
// /v1/rl-recipes sends a fixed body (the bytes the mock answered, given as --body-file); POST
// /v1/rl-runs lets Fastify's own JSON parser read the body and answers a launch-sized 202.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';

const { values } = parseArgs({ options: { 'body-file': { type: 'string' } } });
const app = Fastify({ logger: false });
if (values['body-file']) {
  const recipes = readFileSync(values['body-file']);
  app.get('/v1/rl-recipes', async (_request, reply) => reply.type('application/json; charset=utf-8').send(recipes));
}
app.post('/v1/rl-runs', async (request, reply) => {
  const body = request.body as { recipe_id?: unknown };
  if (typeof body?.recipe_id !== 'string') return reply.code(400).send({ error: 'invalid_request' });
  const id = 'wl_00000000000000000000';
  return reply.code(202).send({ id, workload_id: id, status: 'accepted', revision: 1 });
});

await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening on http://127.0.0.1:${(app.server.address() as AddressInfo).port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
