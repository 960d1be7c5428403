import { z } from 'zod';
import { dateTime } from './primitives.js';
import { built, lazy } from './lazy.js';

/** External connections (the contract's Connections tag): metadata only, never a credential. */

export const ConnectionKind = lazy(() => z.enum(['postgres', 'neon', 'supabase', 'wandb']));
export type ConnectionKind = z.infer<typeof ConnectionKind>;
export const ConnectionScope = lazy(() => z.enum(['read', 'write', 'readwrite']).describe('Defaults to read for database kinds and write for wandb.'));
export type ConnectionScope = z.infer<typeof ConnectionScope>;

const liveMode = lazy(() => z.boolean().meta({ default: false }).describe('Requires a current team administrator and wandb write or readwrite scope.'));

// Lengths bound what reaches the domain, whose rules (the SDK's) name the refusal.
export const ConnectionCreate = lazy(() => z
  .strictObject({
    name: z.string().max(256),
    kind: built(ConnectionKind),
    secret: z.string().max(256).describe('Existing tenant secret name or ID. Credential values are accepted only by POST /v1/secrets.'),
    scope: built(ConnectionScope).optional(),
    region: z.string().max(256).optional(),
    branch: z.string().max(256).optional(),
    entity: z.string().max(256).optional(),
    project: z.string().max(256).optional(),
    live_mode: built(liveMode).optional(),
  })
  .meta({ id: 'ConnectionCreate' }));
export type ConnectionCreate = z.infer<typeof ConnectionCreate>;

export const Connection = lazy(() => z
  .looseObject({
    id: z.string(),
    name: z.string(),
    kind: built(ConnectionKind),
    secret_id: z.string(),
    secret_version: z.int().min(1),
    scope: built(ConnectionScope),
    region: z.string().optional(),
    branch: z.string().optional(),
    entity: z.string().optional(),
    project: z.string().optional(),
    egress_hosts: z.array(z.string()),
    live_mode: built(liveMode),
    verified_at: built(dateTime),
    created_at: built(dateTime),
    created_by: z.string(),
  })
  .meta({ id: 'Connection' }));
export type Connection = z.infer<typeof Connection>;

export const ConnectionList = lazy(() => z.object({ connections: z.array(built(Connection)).describe('oldest first') }));

export const ConnectionParams = lazy(() => z.object({ id: z.string().min(1).max(256).describe('Connection name or ID.') }));
