// The webhook figure's receiver, in its own process: answers every POST 204 and counts it;
// GET /wait?n=N answers once N have arrived, so the bench waits without polling.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

let received = 0;
let waiting: { n: number; res: ServerResponse }[] = [];

const server = createServer((req, res) => {
  if (req.method === 'POST') {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
      const done = waiting.filter((w) => received >= w.n);
      waiting = waiting.filter((w) => received < w.n);
      for (const w of done) w.res.end(String(received));
    });
    return;
  }
  const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('n'));
  if (received >= n) res.end(String(received));
  else waiting.push({ n, res });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
