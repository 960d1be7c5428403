import t from 'tap';
import { crashRound } from '../helpers/crash.js';
import { tempDbPath } from '../helpers/server.js';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 10);

t.test(`${ROUNDS} kills at random moments of a launch storm, on one database file`, async (t) => {
  const db = tempDbPath(t);
  for (let round = 0; round < ROUNDS; round++) {
    const killAtAnswer = 1 + Math.floor(Math.random() * 400);
    const result = await crashRound(db, 10, 5, killAtAnswer, round);
    t.same(result.problems, [], `round ${round}: killed at answer ${killAtAnswer}, ${result.answered.size} of ${result.sent.length} keys answered`);
  }
});
