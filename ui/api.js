// Calls to the ordinary /v1 and /_mock API with the tenant's key: the inspector has no API of its own.

/** Request ids the inspector sends start with this, so the journal view can tell its own reads apart. */
export const REQUEST_ID_PREFIX = 'inspector.';

export class CallError extends Error {
  constructor(method, path, status, body) {
    const code = body && typeof body === 'object' ? body.error : undefined;
    const detail = body && typeof body === 'object' ? body.message : body;
    super(`${method} ${path}: ${status}${code ? ` ${code}` : ''}${detail ? `: ${detail}` : ''}`);
    this.status = status;
    this.code = code;
  }
}

const session = Math.random().toString(36).slice(2, 10);
let issued = 0;

export function createApi(key) {
  async function send(method, path, body, as = 'json') {
    const headers = { authorization: `Bearer ${key}`, 'x-request-id': `${REQUEST_ID_PREFIX}${session}.${++issued}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
    if (!res.ok) {
      const text = await res.text();
      let parsed = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
      throw new CallError(method, path, res.status, parsed);
    }
    if (res.status === 204) return null;
    if (as === 'blob') return { blob: await res.blob(), headers: res.headers };
    return res.json();
  }
  return {
    get: (path) => send('GET', path),
    post: (path, body = {}) => send('POST', path, body),
    put: (path, body) => send('PUT', path, body),
    del: (path) => send('DELETE', path),
    blob: (path) => send('GET', path, undefined, 'blob'),
  };
}

/** Encodes one path segment (a workload id, a fault id). */
export const seg = (value) => encodeURIComponent(value);
