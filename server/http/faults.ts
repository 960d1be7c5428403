import { setTimeout as sleep } from 'node:timers/promises';
import fp from 'fastify-plugin';
import type { FastifyInstance, onSendHookHandler, preValidationHookHandler } from 'fastify';
import { customAlphabet } from 'nanoid';
import type { z } from 'zod';
import type { Fault, FaultAction, FaultRule } from '../../openapi/mock.js';
import type { FaultRow, FaultSource } from '../../store/faults.js';
import { isoTime } from '../domain/clock.js';
import { ApiError } from '../domain/errors.js';

export type FaultRuleInput = z.output<typeof FaultRule>;
type Action = z.output<typeof FaultAction>;

/** What the fault hook did to a request, for the journal. */
export interface AppliedFault {
  id: string;
  type: Action['type'];
}

const newFaultId = ((id) => () => `flt_${id()}`)(
  customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 16),
);

const compiled = new Map<string, RegExp>();

/** `{name}` stands for one segment, a trailing `*` for any rest; everything else is literal. */
function pathRegExp(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (re) return re;
  const prefix = pattern.endsWith('*');
  const body = (prefix ? pattern.slice(0, -1) : pattern)
    .split('/')
    .map((segment) => (/^\{\w+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  re = new RegExp(`^${body}${prefix ? '.*' : ''}$`);
  if (compiled.size >= 1000) compiled.clear();
  compiled.set(pattern, re);
  return re;
}

function ruleMatches(rule: Pick<FaultRow, 'method' | 'path'>, method: string, path: string): boolean {
  return (rule.method === null || rule.method === method) && pathRegExp(rule.path).test(path);
}

export function addFault(app: FastifyInstance, tenantId: string, rule: FaultRuleInput, source: FaultSource): FaultRow {
  const id = newFaultId();
  app.store.faults.insert({
    id,
    tenantId,
    method: rule.method ?? null,
    path: rule.path,
    times: rule.times,
    after: rule.after,
    action: JSON.stringify(rule.action),
    source,
    createdAtMs: app.clock.nowMs(tenantId),
  });
  return app.store.faults.get(tenantId, id)!;
}

export function presentFault(row: FaultRow): z.infer<typeof Fault> {
  return {
    id: row.id,
    method: row.method as z.infer<typeof Fault>['method'],
    path: row.path,
    times: row.times,
    after: row.after,
    action: JSON.parse(row.action) as Action,
    remaining: row.times - row.applied,
    seen: row.seen,
    applied: row.applied,
    source: row.source,
    created_at: isoTime(row.createdAtMs),
  };
}

/**
 * Counts one request against the tenant's rules and answers the rule to apply, if any. Every live
 * rule that matches counts the request in `seen`; of those that have already let `after` requests
 * through, the oldest applies and counts it in `applied`. One synchronous transaction, so the
 * counters are exact however many requests arrive at once, and they survive restarts.
 */
export function takeFault(app: FastifyInstance, tenantId: string, method: string, url: string): FaultRow | undefined {
  // Nearly every request meets no rule. A plain read says so without the write transaction (and
  // its lock and commit) that counting needs; nothing else runs between this read and the
  // transaction below, so the transaction still decides on what it reads itself. Most tenants
  // have no rule at all: then not even the path is cut out of the URL.
  const live = app.store.faults.live(tenantId);
  if (live.length === 0) return undefined;
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  if (!live.some((rule) => ruleMatches(rule, method, path))) return undefined;
  return app.store.write(() => {
    const matching = app.store.faults.live(tenantId).filter((rule) => ruleMatches(rule, method, path));
    if (matching.length === 0) return undefined;
    const chosen = matching.find((rule) => rule.seen >= rule.after);
    app.store.faults.count(tenantId, matching.map((rule) => rule.seq), chosen?.seq);
    return chosen;
  });
}

/**
 * Design decision 9. The rules are evaluated in one hook, preValidation: after auth (the tenant is
 * known) and after the body is read (so the journal has it), before the route's own checks. The
 * onSend hook only carries out a drop decided there, since a dropped answer must exist first.
 */
export default fp(async function faults(app) {
  // Shutdown cuts delays short so close() does not wait out a minute-long fault.
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());

  app.decorateRequest('fault', null);
  // In the done-callback style (sync-hook.ts) but by hand: a delay answers done() later.
  const preValidation: preValidationHookHandler = (request, reply, done) => {
    let rule: FaultRow | undefined;
    try {
      rule = takeFault(app, request.tenant.id, request.method, request.url);
    } catch (err) {
      return done(err as Error);
    }
    if (!rule) return done();
    const action = JSON.parse(rule.action) as Action;
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
