import t from '../../helpers/tap.js';
import { WorkloadRule } from '../../../openapi/workload-rules.js';
import { domainServices, submit } from '../../helpers/domain.js';

t.test('the rules list brings the tenant\'s runs up to now: a trigger a run\'s end made unreachable shows skipped without any read of the run', async (t) => {
  const { services, tenant, wall } = domainServices(t);
  const id = tenant();
  services.workloadRules.add(id, WorkloadRule.parse({ at: { phase: 'training' }, action: { type: 'fail' } }));
  const workload = await submit(services, id);
  services.control.setClock(id, 'realtime', 1_000_000);
  // A wall minute is two virtual years: the custom run has long ended, and nothing has read it.
  wall.now += 60_000;
  const [rule] = await services.workloadRules.list(id);
  t.same(rule.bindings.counts, { pending: 0, applied: 0, skipped: 1 });
  t.match(rule.bindings.workloads, [{ workloadId: workload, state: 'skipped', note: /^the run ended \(completed\) before phase training$/ }]);
});
