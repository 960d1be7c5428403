import t from '../helpers/tap.js';
import { crashRound } from '../helpers/crash.js';
import { tempDbPath } from '../helpers/server.js';

t.test('kill -9 under a launch storm loses no acknowledged launch', async (t) => {
  const round = await crashRound(tempDbPath(t), 5, 4, 40, 0);
  t.same(round.problems, [], `${round.answered.size} keys answered before the kill`);
});

t.test('a server that exits by itself during the storm ends the round, reported', async (t) => {
  // Preloaded into the first server: it exits on the tenth request it starts (the preview is the first).
  const exitAtTenth = "import { subscribe } from 'node:diagnostics_channel'; let n = 0; subscribe('http.server.request.start', () => { if (++n === 10) process.exit(3); });";
  const round = await crashRound(tempDbPath(t), 5, 4, 40, 0, { NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(exitAtTenth)}` });
  t.equal(round.problems.length, 1, round.problems.join('; '));
  t.match(round.problems[0], /^the server exited by itself \(code 3\) after \d+ answers, before the kill$/);
});
