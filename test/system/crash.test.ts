import t from '../helpers/tap.js';
import { crashRound } from '../helpers/crash.js';
import { tempDbPath } from '../helpers/server.js';

t.test('kill -9 under a launch storm loses no acknowledged launch', async (t) => {
  const round = await crashRound(tempDbPath(t), 5, 4, 40, 0);
  t.same(round.problems, [], `${round.answered.size} keys answered before the kill`);
});
