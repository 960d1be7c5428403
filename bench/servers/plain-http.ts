// Cold-start baseline: the least a Node HTTP server can be. Answers /readyz and prints the line
// the mock's CLI prints, so both are started and timed by the same code.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const server = createServer((req, res) => {
  const ready = req.url === '/readyz';
  res.writeHead(ready ? 200 : 404, { 'content-type': 'application/json; charset=utf-8' });
  res.end(ready ? '{"status":"ready"}' : '{"error":"not_found"}');
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
