import t from '../../helpers/tap.js';
import { DomainError } from '../../../server/domain/errors.js';
import { customPayload, domainServices, submit } from '../../helpers/domain.js';

const live = { kind: 'wandb', entity: 'team', project: 'rl', live_mode: true } as const;

const refusal = async (fn: () => unknown) => {
  try {
    await fn();
  } catch (err) {
    if (err instanceof DomainError) return err.code;
    throw err;
  }
  return 'accepted';
};

t.test('a workload refused for its connection leaves no row behind: the check rolls its admission back', async (t) => {
  const { services, store, tenant } = domainServices(t);
  const tn = tenant();
  services.secrets.put(tn, { name: 'WB', value: 'one' });
  services.connections.create(tn, 'key_test', { name: 'wb', secret: 'WB', ...live });
  services.secrets.put(tn, { name: 'WB', value: 'two' });
  t.equal(await refusal(() => submit(services, tn, { connections: ['wb'] })), 'connection_stale');
  t.same(store.workloads.list(tn, [], 10, 0), [], 'no workload was stored');
  t.equal((store.db.prepare('SELECT count(*) AS n FROM workload_connections').get() as { n: number }).n, 0, 'and nothing holds the connection');
  t.equal(await refusal(() => services.workloads.validate(tn, customPayload({ connections: ['wb'] }))), 'connection_stale');
});

t.test('an admitted workload holds its connection until it ends in virtual time', async (t) => {
  const { services, store, tenant } = domainServices(t);
  const tn = tenant();
  services.secrets.put(tn, { name: 'WB', value: 'one' });
  const wb = services.connections.create(tn, 'key_test', { name: 'wb', secret: 'WB', ...live });
  const id = await submit(services, tn, { connections: ['wb'], sweep_id: 'lr' });
  t.equal(store.connections.heldBy(id), wb.id);
  t.equal(await refusal(() => services.connections.delete(tn, 'wb')), 'connection_in_use');
  services.context.units.atNow(tn, (unit) => unit.advanceClock(3600));
  t.equal(await refusal(() => services.connections.delete(tn, wb.id)), 'accepted', 'the ended workload, materialised by the delete, no longer holds it');
  t.equal(store.connections.find(tn, 'wb'), undefined);
  t.equal(store.connections.heldBy(id), wb.id, 'the ended workload keeps the record of what it used');
});

t.test('another tenant names none of it', async (t) => {
  const { services, tenant } = domainServices(t);
  const mine = tenant();
  const theirs = tenant();
  services.secrets.put(mine, { name: 'WB', value: 'one' });
  services.connections.create(mine, 'key_test', { name: 'wb', secret: 'WB', ...live });
  t.equal(await refusal(() => services.connections.create(theirs, 'key_other', { name: 'wb', secret: 'WB', ...live })), 'secret_not_found');
  t.equal(await refusal(() => submit(services, theirs, { connections: ['wb'] })), 'connection_not_found');
  t.equal(await refusal(() => services.connections.verify(theirs, 'wb')), 'not_found');
  t.same(services.secrets.list(theirs), []);
});
