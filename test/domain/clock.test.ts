import t from '../helpers/tap.js';
import { CLOCK_RANGE_MS } from '../../server/domain/clock.js';
import { domainServices } from '../helpers/domain.js';

t.test('a realtime clock stops at the end of its range rather than run past it', async (t) => {
  const { services, tenant, wall } = domainServices(t);
  const id = tenant();
  services.control.setClock(id, 'realtime', 1_000_000);
  const start = services.control.clock(id).nowMs;
  wall.now += 1000;
  t.equal(services.control.clock(id).nowMs, start + 1_000_000_000, 'a wall second is a million virtual seconds');
  // Far enough on the wall clock to pass year 5000 many times over.
  wall.now += 365 * 24 * 3600 * 1000;
  t.equal(services.control.clock(id).nowMs, CLOCK_RANGE_MS.max);
  await t.rejects(services.control.advanceClock(id, 1), { code: 'clock_out_of_range' });
});
