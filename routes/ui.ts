import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { packageRoot } from '../server/boot/package-info.js';
import { ApiError } from '../server/http/api-error.js';
import { sendApiError } from '../server/http/error-handler.js';

/**
 * The only files the inspector serves, each with its media type: a name is looked up here and
 * nowhere else, so no request can name a path of its own (no `..`, no other folder).
 */
const ASSETS: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'api.js': 'text/javascript; charset=utf-8',
  'charts.js': 'text/javascript; charset=utf-8',
  'dom.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/**
 * The inspector at /_mock/ui/: a page and its scripts, read from the package's ui/
 * folder. They hold no data, so no key is asked for here; the page sends the tenant's key with
 * each /v1 and /_mock call it makes. Registered as a context of its own at the root, outside the
 * /_mock context whose hook checks the key.
 */
const ui: FastifyPluginAsync = async (app) => {
  // Read on first use rather than at start: most servers never serve the page, and a cold start
  // is a figure the bench holds.
  const cache = new Map<string, Asset>();
  const asset = (name: string): Asset => {
    let found = cache.get(name);
    if (!found) {
      const body = readFileSync(join(packageRoot(), 'ui', name));
      found = { body, type: ASSETS[name], etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
      cache.set(name, found);
    }
    return found;
  };

  const send = (name: string, request: FastifyRequest, reply: FastifyReply) => {
    const { body, type, etag } = asset(name);
    // No file name carries a version, so the browser revalidates every time; the ETag makes that
    // a 304 while the package is unchanged.
    reply.header('cache-control', 'no-cache').header('etag', etag).header('x-content-type-options', 'nosniff')
      // The page runs only its own files and talks only to this server; journal bodies and log
      // lines it shows are text, and no other site may frame it.
      .header('content-security-policy', "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'");
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type(type).send(body);
  };

  // Relative asset URLs resolve against /_mock/ui/, not /_mock/: send the slashless URL there.
  // The fragment (#key=...) is kept by the browser across the redirect.
  app.get('/', { schema: { hide: true }, prefixTrailingSlash: 'no-slash' }, (_request, reply) =>
    reply.redirect(`${app.prefix}/`, 308));
  app.get('/', { schema: { hide: true }, prefixTrailingSlash: 'slash' }, (request, reply) => send('index.html', request, reply));
  app.get<{ Params: { file: string } }>('/:file', { schema: { hide: true } }, (request, reply) => {
    const { file } = request.params;
    if (!Object.hasOwn(ASSETS, file)) {
      return sendApiError(reply, new ApiError(404, 'not_found', `the inspector has no file ${JSON.stringify(file.slice(0, 100))}`));
    }
    return send(file, request, reply);
  });
  app.setNotFoundHandler(app.notFound);
};

export default ui;
