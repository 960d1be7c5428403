import t from '../helpers/tap.js';
import { createCheckpointer } from '../../store/transactions.js';
import { tempDbPath } from '../helpers/server.js';

// committed() runs after a commit that is still to be answered: a thread that cannot start must
// cost that answer nothing, and leave the WAL to SQLite's own checkpoint.

t.test('a thread that cannot be made leaves every commit answered', async (t) => {
  const checkpointer = createCheckpointer(tempDbPath(t), new URL('http://127.0.0.1/not-a-thread.js'));
  for (let i = 0; i < 200; i++) checkpointer.committed();
  t.equal(checkpointer.close(), undefined, 'no thread was left to stop');
});
