import { setTimeout as sleep } from 'node:timers/promises';
import fp from 'fastify-plugin';
import type { onSendHookHandler, preValidationHookHandler } from 'fastify';
import type { FaultRow } from '../../store/faults.js';
import type { FaultActionInput } from '../domain/control/faults.js';
import { ApiError } from './api-error.js';

/**
 * Fault rules are data, applied here. They are evaluated in one hook, preValidation: after auth (the tenant is
 * known) and after the body is read (so the journal has it), before the route's own checks. The
 * onSend hook only carries out a drop decided there, since a dropped answer must exist first.
 */
export default fp(async function faults(app) {
  const { control } = app.services;
  // Shutdown cuts delays short so close() does not wait out a minute-long fault.
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());

  app.decorateRequest('fault', null);
  // In the done-callback style (sync-hook.ts) but by hand: a delay answers done() later.
  const preValidation: preValidationHookHandler = (request, reply, done) => {
    let rule: FaultRow | undefined;
    try {
      rule = control.takeFault(request.tenant.id, request.method, request.url);
    } catch (err) {
      return done(err as Error);
    }
    if (!rule) return done();
    const action = JSON.parse(rule.action) as FaultActionInput;
    request.fault = { id: rule.id, type: action.type };
    switch (action.type) {
      case 'error':
        return done(new ApiError(action.status, action.error, action.message, {},
          action.retry_after === undefined ? {} : { 'retry-after': String(action.retry_after) }));
      case 'delay':
        void sleep(action.ms, undefined, { signal: closing.signal }).catch(() => undefined).then(() => done());
        return;
      case 'reset':
        // Hijacked, Fastify runs nothing more for this request; the client sees the socket close.
        reply.hijack();
        request.raw.socket.destroy();
        return done();
      case 'drop_response':
        return done();
    }
  };

  // Destroying the socket before Fastify writes the head means not one byte of the answer leaves.
  const onSend: onSendHookHandler = (request, _reply, payload, done) => {
    if (request.fault?.type === 'drop_response') request.raw.socket.destroy();
    done(null, payload);
  };
  app.decorate('faultHooks', { preValidation, onSend });
});
