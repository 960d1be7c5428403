import type { TestServer } from './server.js';

/** Puts a secret and creates a connection on it; answers the connection. Fails the test on a refusal. */
export async function connect(s: Pick<TestServer, 'call'>, name: string, fields: Record<string, unknown> = { kind: 'postgres' }, key?: string) {
  const secret = `${name.replace(/-/g, '_').toUpperCase()}_SECRET`;
  const put = await s.call('POST', '/v1/secrets', { body: { name: secret, value: `value-of-${name}` }, key });
  if (put.status !== 201) throw new Error(`secret ${secret}: ${put.status} ${put.text}`);
  const created = await s.call('POST', '/v1/connections', { body: { name, secret, ...fields }, key });
  if (created.status !== 201) throw new Error(`connection ${name}: ${created.status} ${created.text}`);
  return created.body;
}

/** A live wandb connection, as a workload's `connections` needs. */
export const liveWandb = { kind: 'wandb', entity: 'team', project: 'rl', live_mode: true };
