import { z } from 'zod';
import { dateTime } from './primitives.js';
import { built, lazy } from './lazy.js';

/** Compute (the contract's Compute tag): the tenant's training, a sweep's runs grouped as one item. */

export const ComputeGroup = lazy(() => z
  .looseObject({
    id: z.string().describe('Sweep item id, sweep_ followed by the sweep id.'),
    sweep_id: z.string(),
    kind: z.literal('sweep'),
    size: z.int(),
    running: z.int(),
    succeeded: z.int(),
    failed: z.int(),
  })
  .meta({ id: 'ComputeGroup' }));
export type ComputeGroup = z.infer<typeof ComputeGroup>;

export const COMPUTE_STATES = ['starting', 'ready', 'running', 'recovering', 'stopping', 'stopped', 'paused', 'succeeded', 'failed', 'cancelled'] as const;
export type ComputeState = (typeof COMPUTE_STATES)[number];

export const LAUNCH_CLIENTS = ['console', 'python-sdk', 'cli', 'mcp', 'claude-code', 'codex', 'cursor', 'api'] as const;

export const ComputeItem = lazy(() => z
  .looseObject({
    id: z.string(),
    type: z.enum(['instance', 'training', 'workspace']),
    name: z.string(),
    gpu: z.string().nullable(),
    gpu_count: z.int(),
    gpu_memory_gb: z.number().nullable(),
    state: z.enum(COMPUTE_STATES).describe('paused is frozen training. It holds no compute and lists under history.'),
    status_text: z.string(),
    created_at: built(dateTime),
    started_at: built(dateTime).nullable(),
    ended_at: built(dateTime).nullable(),
    launched_by: z.looseObject({
      client: z.enum(LAUNCH_CLIENTS),
      user_id: z.string().nullable(),
      user_name: z.string().nullable(),
      api_key_id: z.string().nullable(),
      api_key_name: z.string().nullable(),
    }),
    group: built(ComputeGroup).nullable(),
    resource: z.looseObject({ kind: z.enum(['research_workspace', 'workload', 'sweep']), id: z.string() }),
  })
  .meta({ id: 'ComputeItem' }));
export type ComputeItem = z.infer<typeof ComputeItem>;

export const ComputeList = lazy(() => z
  .looseObject({
    items: z.array(built(ComputeItem)),
    next_cursor: z.string().nullable(),
    summary: z.looseObject({ running: z.looseObject({ instance: z.int(), training: z.int(), workspace: z.int() }) }),
  })
  .meta({ id: 'ComputeList' }));
export type ComputeList = z.infer<typeof ComputeList>;

export const ComputeGroupPage = lazy(() => z.object({ group: built(ComputeGroup), items: z.array(built(ComputeItem)), next_cursor: z.string().nullable() }));
export type ComputeGroupPage = z.infer<typeof ComputeGroupPage>;

const limit = lazy(() => z.coerce.number().int().min(1).max(100).default(50));
const cursor = lazy(() => z.string().max(512).optional().describe('Opaque next_cursor from the previous page with the same filters.'));

export const ComputeQuery = lazy(() => z.object({
  state: z.enum(['running', 'history']).meta({ default: 'running' }).optional(),
  type: z.enum(['instance', 'training', 'workspace']).optional().describe('workspace selects running saved workspaces and returns no history.'),
  include: z.enum(['workspaces']).optional().describe('Adds running saved workspaces as items of type workspace.'),
  launched_by: z.enum(['me', 'agents']).optional().describe('agents selects claude-code, codex, cursor and mcp. me requires a credential associated with a team member.'),
  limit: built(limit),
  cursor: built(cursor),
}));
export type ComputeQuery = z.infer<typeof ComputeQuery>;

export const ComputeGroupParams = lazy(() => z.object({ id: z.string().min(1).max(256).regex(/^sweep_.+/).describe('a sweep item id from GET /v1/compute: sweep_ followed by the sweep id') }));
export const ComputeGroupQuery = lazy(() => z.object({ limit: built(limit), cursor: built(cursor) }));
