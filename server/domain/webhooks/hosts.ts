import { isIP } from 'node:net';
import { LOOPBACK_HOSTS, OPTIONS, type Config } from '../../config.js';

/**
 * Where deliveries may go. The real service asks for public HTTPS; a mock must reach a receiver
 * inside the test, so it delivers to loopback and to the hosts the operator lists
 * (--webhook-hosts), over http or https, and nowhere else: a mock that posts wherever a test
 * says would be an open relay on whatever network it runs in. By host name only, not by what
 * the name resolves to: a listed name is trusted as listed.
 */

/** 127.0.0.0/8 or ::1, written as an address (IPv6 without brackets). */
export function isLoopbackAddress(host: string): boolean {
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/**
 * `localhost` is resolved from the hosts file, to loopback. A name under `.localhost` is not
 * special to the resolver here: DNS could answer any address for it, so it counts as loopback
 * only where it is listed by name.
 */
const isLoopback = (host: string) => host === 'localhost' || isLoopbackAddress(host);

/** The URL's host as listed in the setting: lower case, IPv6 without brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();

/** Why this URL may not be a webhook, or undefined when it may. */
export function refusedWebhookUrl(raw: string, config: Pick<Config, 'webhookHosts'>): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'the webhook url is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'the webhook url must be http or https';
  if (url.username || url.password) return 'the webhook url must not carry credentials';
  const host = hostOf(url);
  const allowed = config.webhookHosts;
  if (allowed.includes('*') || allowed.includes(host) || (allowed.includes(LOOPBACK_HOSTS) && isLoopback(host))) return undefined;
  const { flag, env } = OPTIONS.webhookHosts;
  const why = host.endsWith('.localhost') ? ' (a name under .localhost is resolved by DNS, which may answer any address)' : '';
  return `the mock delivers webhooks only to the hosts of --${flag} / ${env} (now: ${allowed.join(',') || 'none'}); ` +
    `${host} is not one of them${why}: start the server with it added, or use a loopback receiver`;
}
