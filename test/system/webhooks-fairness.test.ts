import t from '../helpers/tap.js';
import { MAX_IN_FLIGHT_PER_TENANT } from '../../server/domain/webhooks/delivery.js';
import { startServer } from '../helpers/server.js';
import { fairnessRound, p95 } from '../helpers/webhook-fairness.js';

// Hanging attempts end at this timeout, and are retried at once (their tenants' clocks are fast).
// The healthy figure does not depend on it: its deliveries never wait for a hanging one to end.
const TIMEOUT_MS = 2000;

t.test('eight tenants whose receivers never answer do not hold up another tenant\'s deliveries', async (t) => {
  const s = await startServer(t, { webhookTimeoutMs: TIMEOUT_MS });
  const r = await fairnessRound(s.url, { hangingTenants: 8, hangingRuns: MAX_IN_FLIGHT_PER_TENANT, healthyRuns: 4, healthyRunSeconds: 1, deadlineMs: 15_000 });
  const p = p95(r.latenciesMs);
  t.equal(r.latenciesMs.length, 24, 'every status change of the healthy tenant\'s four runs arrived');
  t.ok(r.hangingOpen >= 16, `the hanging tenants held ${r.hangingOpen} attempts open (more than the 16 slots of the whole server before) when the healthy tenant's last delivery arrived`);
  t.ok(p < 2000, `the healthy tenant's p95 from due to received is under 2 s: ${Math.round(p)} ms`);
});
