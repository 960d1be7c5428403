import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { StaticDocumentSpec } from '@fastify/swagger';

/** Headers of the inner answer that belong to its own transport, not to the body passed on. */
const TRANSPORT_HEADERS = new Set(['connection', 'content-length', 'date', 'keep-alive', 'transfer-encoding']);

/**
 * `/docs`: Swagger UI over the OpenAPI document. @fastify/swagger-ui with @fastify/static and
 * their dependencies (some 40 files) and its registration were about a tenth of a cold start, for
 * a page most runs never open. So the UI lives in a small Fastify instance of its own, built on
 * the first `/docs` request, and this app answers each `/docs` request with what that instance
 * answers, through its own hooks (request id, request log) like any other route.
 */
export default async function docs(app: FastifyInstance, options: { document: () => object }) {
  let ui: Promise<FastifyInstance> | undefined;
  const answer = async (request: FastifyRequest, reply: FastifyReply) => {
    const inner = await (ui ??= buildUi(options.document()).catch((err) => {
      ui = undefined;
      throw err;
    }));
    // GET for a HEAD too: this app's HEAD route sends the GET answer's headers without its body.
    const res = await inner.inject({ method: 'GET', url: request.url, headers: request.headers });
    // A missing asset is this app's 404, in its envelope, as it was when the UI was registered here.
    if (res.statusCode === 404) return reply.callNotFound();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined && !TRANSPORT_HEADERS.has(name)) reply.header(name, value);
    }
    // No body at all for a redirect or a 304, or Fastify would label the empty one a byte stream.
    return reply.code(res.statusCode).send(res.rawPayload.length ? res.rawPayload : undefined);
  };
  app.get('/docs', { schema: { hide: true } }, answer);
  app.get('/docs/*', { schema: { hide: true } }, answer);
}

async function buildUi(document: object): Promise<FastifyInstance> {
  const [{ default: swagger }, { default: swaggerUi }] = await Promise.all([import('@fastify/swagger'), import('@fastify/swagger-ui')]);
  const ui = Fastify();
  // A 3.1 document, which these types do not name.
  await ui.register(swagger, { mode: 'static', specification: { document: document as StaticDocumentSpec['document'] } });
  await ui.register(swaggerUi, { routePrefix: '/docs' });
  await ui.ready();
  return ui;
}
