import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import fp from 'fastify-plugin';
import { OPTIONS } from '../config.js';
import { isLoopbackAddress } from '../domain/webhooks/hosts.js';
import { ApiError } from './api-error.js';

const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/** Labels of letters, digits, `-` and `_` (service names have them), dot-separated: IPv4 addresses too. */
const NAME = /^(?:[a-z0-9_-]+\.)*[a-z0-9_-]+\.?$/;
const PORT = /^(?::[0-9]{0,5})?$/;

/**
 * `Example.test:8080` → `example.test`, `[::1]:8080` → `::1`, a trailing dot dropped; undefined
 * for anything that is not a name, an IPv4 address or a bracketed IPv6 address with an optional
 * port (or a bare IPv6 address): a proxy may read such a Host differently, and no client sends one.
 */
function hostName(authority: string): string | undefined {
  const host = authority.toLowerCase();
  // A bare IPv6 address has two colons or more, a name or IPv4 address with its port one: isIP's
  // IPv6 pattern, whose first use compiles it (8 ms, on a server's first request), is not tried.
  if (host.indexOf(':') !== host.lastIndexOf(':') && isIP(host) === 6) return host;
  const bracketed = host.startsWith('[');
  const end = bracketed ? host.indexOf(']') + 1 : host.includes(':') ? host.indexOf(':') : host.length;
  if (end === 0) return undefined;
  const port = host.slice(end);
  if (!PORT.test(port) || Number(port.slice(1)) > 65535) return undefined;
  const name = bracketed ? host.slice(1, end - 1) : host.slice(0, end);
  if (bracketed ? isIP(name) !== 6 : !NAME.test(name)) return undefined;
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** The authority of an absolute-form target (`GET http://example.test/v1/me`), which stands for Host (RFC 9112 §3.2.2). */
function targetAuthority(url: string): string | undefined {
  if (url.startsWith('/')) return undefined;
  return /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url)?.[1];
}

/** Node keeps the first of two Host headers, where a proxy may have routed by the last. */
function hostHeaders(raw: string[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 4 && raw[i].toLowerCase() === 'host') count++;
  return count;
}

/** The listening address, or every address of the machine's interfaces when it listens on all. */
function boundAddresses(host: string): string[] {
  if (!UNSPECIFIED.has(host)) return [hostName(isIP(host) === 6 ? `[${host}]` : host) ?? host];
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.toLowerCase()));
}

/**
 * Answers only requests addressed to one of the mock's own names. A web page whose name an attacker
 * rebinds to 127.0.0.1 reaches a loopback server with its own name in Host: in open mode it could
 * otherwise drive the mock with the printed key and make it deliver webhooks to other loopback
 * ports. A request without Host (HTTP/1.0; Node refuses one in HTTP/1.1) comes from no browser.
 * An absolute-form target's host is checked in place of Host, as HTTP says it replaces it.
 */
export default fp(async function hosts(app) {
  const { allowedHosts, host } = app.config;
  if (allowedHosts?.includes('*')) return;
  const names = new Set(['localhost', 'host.docker.internal', ...boundAddresses(host), ...(allowedHosts ?? [])]);
  const allowed = (name: string) => names.has(name) || name.endsWith('.localhost') || isLoopbackAddress(name);
  const { flag, env } = OPTIONS.allowedHosts;
  const refuse = (message: string) => new ApiError(403, 'host_not_allowed', `${message}; this mock answers only to its own names`);
  // A client sends the same Host on every request: the last one allowed is let through unparsed.
  let lastAllowed: string | undefined;
  app.addHook('onRequest', (request, _reply, done) => {
    const target = targetAuthority(request.raw.url ?? '');
    const authority = target ?? request.headers.host;
    if (authority === undefined) return done();
    if (target === undefined && hostHeaders(request.raw.rawHeaders) > 1) throw refuse('the request has more than one Host header');
    if (authority === lastAllowed) return done();
    const name = hostName(authority);
    if (name === undefined) {
      throw refuse(`${JSON.stringify(authority)} is not a host name or address with an optional port (the ${target === undefined ? 'Host header' : 'request target\'s host'})`);
    }
    if (!allowed(name)) {
      throw new ApiError(
        403,
        'host_not_allowed',
        `this mock answers only to its own names, and ${JSON.stringify(name)} is not one of them: ` +
          `start it with --${flag} ${name} (or ${env}=${name}), or * to answer any Host`,
      );
    }
    lastAllowed = authority;
    done();
  });
});
