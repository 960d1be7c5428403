import t from '../helpers/tap.js';
import { DomainError } from '../../server/domain/errors.js';
import { admitOnce, fingerprintOf, knownReplay } from '../../server/domain/keyed-admission.js';
import type { TenantUnit } from '../../server/domain/unit.js';
import { customPayload, domainServices } from '../helpers/domain.js';

/** An operation whose admissions are counted, refused while `refuse` says so. */
function operation(fingerprint: string, refuse = () => false) {
  const admitted: number[] = [];
  return {
    admitted,
    request: {
      operation: 'workload.submit' as const,
      fingerprint,
      admit: (unit: TenantUnit): string => {
        if (refuse()) throw new DomainError('over_budget', 'budget_exceeded', 'refused on purpose');
        admitted.push(unit.nowMs);
        return `wl_test${admitted.length}`;
      },
    },
  };
}

t.test('concurrent duplicates of a new key: one admission, the others replay its answer', async (t) => {
  const d = domainServices(t);
  const tenant = d.tenant();
  const op = operation('same');
  const answers = await Promise.all([1, 2, 3].map(() => admitOnce(d.services.context, tenant, 'k', op.request)));
  t.equal(op.admitted.length, 1, 'admitted once');
  t.same(answers.map((a) => a.replayed).sort(), [false, true, true]);
  t.same(new Set(answers.map((a) => a.submitted.id)).size, 1, 'every answer names the same workload');
});

t.test('a duplicate that arrives while the first is refused is admitted on its own, not given the refusal', async (t) => {
  const d = domainServices(t);
  const tenant = d.tenant();
  let refusals = 1;
  const op = operation('same', () => refusals-- > 0);
  const [first, second] = await Promise.allSettled([
    admitOnce(d.services.context, tenant, 'k', op.request),
    admitOnce(d.services.context, tenant, 'k', op.request),
  ]);
  t.match(first, { status: 'rejected', reason: { refusal: 'over_budget' } }, 'the first is refused');
  t.match(second, { status: 'fulfilled', value: { replayed: false, submitted: { id: 'wl_test1' } } }, 'the second admitted itself');
  t.equal(op.admitted.length, 1);
});

t.test('a duplicate with another body, sent while the first is in flight, is a conflict once it commits', async (t) => {
  const d = domainServices(t);
  const tenant = d.tenant();
  const [a, b] = [operation('one'), operation('two')];
  const [first, second] = await Promise.allSettled([
    admitOnce(d.services.context, tenant, 'k', a.request),
    admitOnce(d.services.context, tenant, 'k', b.request),
  ]);
  t.match(first, { status: 'fulfilled', value: { replayed: false } });
  t.match(second, { status: 'rejected', reason: { refusal: 'conflict', code: 'idempotency_conflict' } });
  t.equal(b.admitted.length, 0, 'the other body was never admitted');
});

t.test('the same key in two tenants at once is two admissions', async (t) => {
  const d = domainServices(t);
  const op = operation('same');
  const answers = await Promise.all([d.tenant(), d.tenant()].map((tenant) => admitOnce(d.services.context, tenant, 'k', op.request)));
  t.same(answers.map((a) => a.replayed), [false, false]);
  t.equal(op.admitted.length, 2);
});

t.test('a retry replays from memory once the file has answered one: no transaction, however many retries', async (t) => {
  const d = domainServices(t);
  const tenant = d.tenant();
  const op = operation('same');
  const writeTogether = d.store.writeTogether.bind(d.store);
  let transactions = 0;
  d.store.writeTogether = (fn) => {
    transactions++;
    return writeTogether(fn);
  };
  await admitOnce(d.services.context, tenant, 'k', op.request);
  t.equal(transactions, 1, 'the admission is one transaction');
  // Its own INSERT forgot the record from memory: the first retry may need the file.
  const first = await admitOnce(d.services.context, tenant, 'k', op.request);
  const afterFirst = transactions;
  const later = await Promise.all([1, 2, 3].map(() => admitOnce(d.services.context, tenant, 'k', op.request)));
  t.equal(transactions, afterFirst, 'later retries need no transaction');
  t.same([first, ...later].map((a) => [a.replayed, a.submitted.id]), Array(4).fill([true, 'wl_test1']));
  await t.rejects(admitOnce(d.services.context, tenant, 'k', operation('other').request), { refusal: 'conflict', code: 'idempotency_conflict' }, 'a cached record still refuses another body');
  t.equal(transactions, afterFirst, 'and refuses it without a transaction');
  t.equal(op.admitted.length, 1);
});

t.test('a fingerprint is worked out once per operation and body text, and every time without a text or for a long one', async (t) => {
  let computed = 0;
  const hash = (value: string) => () => {
    computed++;
    return value;
  };
  // A text no other test sends: the memo belongs to the process.
  const text = `{"memo":"${Math.random()}"}`;
  t.equal(fingerprintOf('workload.submit', text, hash('a')), 'a');
  t.equal(fingerprintOf('workload.submit', text, hash('b')), 'a', 'the same text answers what was worked out for it');
  t.equal(computed, 1, 'and works nothing out again');
  t.equal(fingerprintOf('rl_run.launch', text, hash('c')), 'c', 'the same text under another operation is its own fingerprint');
  t.equal(fingerprintOf('workload.submit', null, hash('d')), 'd', 'without a text, no memo');
  const long = `"${'x'.repeat(4096)}"`;
  fingerprintOf('workload.submit', long, hash('e'));
  t.equal(fingerprintOf('workload.submit', long, hash('f')), 'f', 'a text over 4 KiB is not kept');
  t.equal(computed, 5);
});

t.test('a submit retried with the same bytes replays; other bytes of another body are a conflict', async (t) => {
  const d = domainServices(t);
  const tenant = d.tenant();
  const payload = customPayload();
  const text = JSON.stringify(payload);
  const first = await d.services.workloads.submit(tenant, 'k', payload, text);
  const again = await d.services.workloads.submit(tenant, 'k', structuredClone(payload), text);
  t.same([again.replayed, again.submitted.id], [true, first.submitted.id]);
  const other = customPayload({ name: 'other' });
  await t.rejects(d.services.workloads.submit(tenant, 'k', other, JSON.stringify(other)), { refusal: 'conflict', code: 'idempotency_conflict' });
});

t.test('a retry known from memory alone: the same bytes, under the tenant\'s own unexpired record of their fingerprint', async (t) => {
  const d = domainServices(t, { clock: 'manual', idempotencyTtl: 60 });
  const { context } = d.services;
  const tenant = d.tenant();
  const payload = customPayload({ name: `known-${Math.random()}` });
  const text = JSON.stringify(payload);
  const known = (key: string, bytes: string | null = text, who = tenant) => knownReplay(context, who, 'workload.submit', key, bytes);
  t.equal(known('k'), undefined, 'bytes never checked: no fingerprint to go by');
  const first = await d.services.workloads.submit(tenant, 'k', payload, text);
  // The admission's own write leaves the record out of memory; a retry through the file keeps it.
  await d.services.workloads.submit(tenant, 'k', payload, text);
  t.same(known('k'), { replayed: true, submitted: first.submitted }, 'the same bytes under the key: the earlier answer');
  t.equal(known('k', ` ${text}`), undefined, 'other bytes, even of the same body: the whole path decides');
  t.equal(known('k', null), undefined, 'no bytes to go by');
  t.equal(known('other-key'), undefined, 'another key');
  t.equal(known('k', text, d.tenant()), undefined, 'another tenant');
  t.equal(knownReplay(context, tenant, 'rl_run.launch', 'k', text), undefined, 'another operation');
  const other = customPayload({ name: `other-${Math.random()}` });
  const otherText = JSON.stringify(other);
  fingerprintOf('workload.submit', otherText, () => 'some other fingerprint');
  t.equal(known('k', otherText), undefined, 'bytes whose fingerprint the record does not hold: a conflict, which the whole path answers');
  await d.services.control.advanceClock(tenant, 60);
  t.equal(known('k'), undefined, 'an expired record');
});
