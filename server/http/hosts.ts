import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import fp from 'fastify-plugin';
import { OPTIONS } from '../config.js';
import { isLoopbackAddress } from '../domain/webhooks/hosts.js';
import { ApiError } from './api-error.js';
import { syncHook } from './sync-hook.js';

const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/** `Example.test:8080` → `example.test`, `[::1]:8080` → `::1`; a trailing dot dropped. */
function hostName(header: string): string {
  const host = header.trim().toLowerCase();
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.indexOf(':');
  // Two colons or more and no brackets: an IPv6 address without a port.
  const name = colon !== -1 && colon === host.lastIndexOf(':') ? host.slice(0, colon) : host;
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** The listening address, or every address of the machine's interfaces when it listens on all. */
function boundAddresses(host: string): string[] {
  if (!UNSPECIFIED.has(host)) return [hostName(isIP(host) === 6 ? `[${host}]` : host)];
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.toLowerCase()));
}

/**
 * Answers only requests addressed to one of the mock's own names. A web page whose name an attacker
 * rebinds to 127.0.0.1 reaches a loopback server with its own name in Host: in open mode it could
 * otherwise drive the mock with the printed key and make it deliver webhooks to other loopback
 * ports. A request without Host (HTTP/1.0; Node refuses one in HTTP/1.1) comes from no browser.
 */
export default fp(async function hosts(app) {
  const { allowedHosts, host } = app.config;
  if (allowedHosts?.includes('*')) return;
  const names = new Set(['localhost', 'host.docker.internal', ...boundAddresses(host), ...(allowedHosts ?? [])]);
  const allowed = (name: string) => names.has(name) || name.endsWith('.localhost') || isLoopbackAddress(name);
  const { flag, env } = OPTIONS.allowedHosts;
  // A client sends the same Host on every request: the last one allowed is let through unparsed.
  let lastAllowed: string | undefined;
  app.addHook('onRequest', syncHook((request) => {
    const header = request.headers.host;
    if (header === undefined || header === lastAllowed) return;
    const name = hostName(header);
    if (allowed(name)) {
      lastAllowed = header;
      return;
    }
    throw new ApiError(
      403,
      'host_not_allowed',
      `this mock answers only to its own names, and ${JSON.stringify(name)} is not one of them: ` +
        `start it with --${flag} ${name} (or ${env}=${name}), or * to answer any Host`,
    );
  }));
});
