import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Teardown } from './server.js';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed. */
  event: any;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>/hook`. */
  url: string;
  received: Received[];
  /** How the next requests are answered; by default 204. */
  answer: (req: Received, res: ServerResponse) => void;
  /** Resolves once `n` requests have arrived (a wall-clock wait bounded by `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1, port 0, that records every request it gets. */
export async function startReceiver(t: Teardown): Promise<Receiver> {
  const waiting: { n: number; resolve: () => void }[] = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: (_req, res) => {
      res.statusCode = 204;
      res.end();
    },
    waitFor(n, timeoutMs = 10_000) {
      if (receiver.received.length >= n) return Promise.resolve(receiver.received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`receiver: ${receiver.received.length} of ${n} requests after ${timeoutMs} ms`)), timeoutMs);
        waiting.push({ n, resolve: () => { clearTimeout(timer); resolve(receiver.received); } });
      });
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const got: Received = { headers: req.headers, body, event: JSON.parse(body) };
      receiver.received.push(got);
      receiver.answer(got, res);
      for (const w of waiting.filter((w) => receiver.received.length >= w.n)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  t.teardown(() => receiver.close());
  return receiver;
}

/**
 * Verifies one request as a Standard Webhooks receiver would, written from the scheme alone
 * (not from the server's code): HMAC-SHA256 keyed by the base64 after whsec_, over
 * "{id}.{timestamp}.{body}", compared in constant time with each `v1,` signature sent.
 */
export function verifies(secret: string, got: Received): boolean {
  const id = String(got.headers['webhook-id']);
  const timestamp = String(got.headers['webhook-timestamp']);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${got.body}`).digest();
  return String(got.headers['webhook-signature'])
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .some((s) => {
      const sent = Buffer.from(s.slice(3), 'base64');
      return sent.length === expected.length && timingSafeEqual(sent, expected);
    });
}

/** What a stubbed fetch was called with. */
export interface Sent {
  url: string;
  init: RequestInit;
}

/**
 * Replaces global fetch for one test, the delivery worker's receivers without sockets: every call
 * is recorded, then answered by `answer`. The real fetch is put back at the test's end.
 */
export function stubFetch(t: Teardown, answer: (sent: Sent) => Promise<Response>): Sent[] {
  const sent: Sent[] = [];
  const real = globalThis.fetch;
  globalThis.fetch = ((url: string | URL, init: RequestInit = {}) => {
    const call = { url: String(url), init };
    sent.push(call);
    return answer(call);
  }) as typeof fetch;
  t.teardown(() => {
    globalThis.fetch = real;
  });
  return sent;
}
