import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { isoTime } from '../../server/domain/clock.js';
import type { ClockView } from '../../server/domain/clock-view.js';
import { errorResponses } from '../../openapi/common.js';
import { ClockAdvance, ClockNow, ClockState, ClockUpdate } from '../../openapi/mock.js';

const present = (v: ClockView) => ({ mode: v.mode, scale: v.scale, now: isoTime(v.nowMs) });

export default (async function mockClockRoutes(app) {
  const { control } = app.services;

  app.get('/clock', {
    schema: { operationId: 'getMockClock', tags: ['mock'], summary: "This tenant's virtual clock", response: { 200: ClockState } },
  }, async (request) => present(control.clock(request.tenant.id)));

  app.put('/clock', {
    schema: {
      operationId: 'setMockClock',
      tags: ['mock'],
      summary: 'Switch clock mode (and scale); virtual time never jumps backwards',
      body: ClockUpdate,
      response: { 200: ClockState },
    },
  }, async (request) => present(control.setClock(request.tenant.id, request.body.mode, request.body.scale)));

  app.post('/clock/advance', {
    schema: {
      operationId: 'advanceMockClock',
      tags: ['mock'],
      summary: 'Move virtual time forward, by seconds or until a condition holds, and materialise everything due',
      body: ClockAdvance,
      response: { 200: ClockNow, ...errorResponses(404, 409) },
    },
  }, async (request) => {
    const { seconds, until, max_seconds } = request.body;
    if (until === undefined) return { now: isoTime(await control.advanceClock(request.tenant.id, seconds!)) };
    return { now: isoTime(await control.advanceClockUntil(request.tenant.id, until, max_seconds)), held: true };
  });
}) satisfies FastifyPluginAsyncZod;
