import t from '../helpers/tap.js';
import { alternate, figure, median } from '../../bench/rounds.js';

t.test('median of an odd and an even number of values', async (t) => {
  t.equal(median([5, 1, 3]), 3);
  t.equal(median([4, 1, 3, 2]), 2.5);
  t.throws(() => median([]));
});

t.test('alternate runs every arm once per round and reverses the order each round', async (t) => {
  const calls: string[] = [];
  const arm = (name: string) => async () => {
    calls.push(name);
    return calls.length;
  };
  const r = await alternate(3, { a: arm('a'), b: arm('b') });
  t.same(calls, ['a', 'b', 'b', 'a', 'a', 'b']);
  t.same(r, { a: [1, 4, 5], b: [2, 3, 6] }, 'results stay with their arm whatever the order');
});

t.test('a figure is the ratio of the medians, judged in the direction of its target', async (t) => {
  const more = figure({ id: 'x', title: 'x', unit: 'req/s', target: { op: '>=', ratio: 0.7 } }, { label: 's', rounds: [80, 70, 90] }, { label: 'b', rounds: [100, 120, 110] });
  t.equal(more.subject.median, 80);
  t.equal(more.baseline.median, 110);
  t.equal(more.ratio, 80 / 110);
  t.equal(more.pass, true);
  const less = figure({ id: 'y', title: 'y', unit: 'ms', target: { op: '<=', ratio: 1.3 } }, { label: 's', rounds: [140] }, { label: 'b', rounds: [100] });
  t.equal(less.pass, false);
  const info = figure({ id: 'z', title: 'z', unit: 'ms' }, { label: 's', rounds: [2] }, { label: 'b', rounds: [1] });
  t.equal(info.pass, undefined, 'no target, no verdict');
});
