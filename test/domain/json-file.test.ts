import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import t from '../helpers/tap.js';
import { regularFileBlocks } from '../../server/domain/json-file.js';
import { tempDbPath } from '../helpers/server.js';

class FileError extends Error {}
const fail = (message: string) => new FileError(message);
/** The file's text, read a block at a time as a snapshot is. */
const read = (path: string, maxBytes: number) => Buffer.concat([...regularFileBlocks(path, { maxBytes, setting: '--max-bytes' }, fail)]).toString('utf8');

t.test('a file is read only when it is a regular file within it', async (t) => {
  const dir = dirname(tempDbPath(t));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const exact = file('exact.json', `[${'1,'.repeat(48)}1 ]`);
  t.same(JSON.parse(read(exact, 100)), Array(49).fill(1), 'a file of exactly the limit');
  t.throws(() => read(file('big.json', `[${'1,'.repeat(50)}1]`), 100), new FileError(`${dir}/big.json: 103 bytes is over --max-bytes (100)`));

  const fifo = join(dir, 'fifo');
  spawnSync('mkfifo', [fifo]);
  const folder = join(dir, 'folder');
  mkdirSync(folder);
  const socket = join(dir, 'socket');
  const server = createServer().listen(socket);
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => server.close());
  const refused: [string, RegExp][] = [
    // Without a writer, reading a FIFO would wait forever; /dev/zero never ends.
    [fifo, /fifo: cannot read: a FIFO, not a regular file$/],
    ['/dev/zero', /^\/dev\/zero: cannot read: a device, not a regular file$/],
    [folder, /folder: cannot read: a directory, not a regular file$/],
    [socket, /socket: cannot read: ENXIO/],
    [join(dir, 'missing.json'), /missing\.json: cannot read: ENOENT/],
  ];
  for (const [path, message] of refused) t.throws(() => read(path, 100), { name: 'Error', message }, path);
});

t.test('a file whose size says less than it holds is still read no further than the limit and one byte', { skip: process.platform !== 'linux' && 'needs /proc' }, async (t) => {
  // /proc's files are regular files of size 0 whose text is made as it is read, as if they grew.
  t.throws(() => read('/proc/self/maps', 100), new FileError('/proc/self/maps: more than 100 bytes is over --max-bytes (100)'));
});
