import { z } from 'zod';
import { queryInteger } from './primitives.js';
import { built, lazy } from './lazy.js';

/**
 * Path parameters and query strings of the routes: with the bodies (the other modules here) they
 * are the whole contract of a request, validated before any of it reaches the domain.
 */
export const WorkloadParams = lazy(() => z.object({ id: z.string().min(1).max(128) }));

/** GET /v1/workloads/{id}/outputs/{name}; the name's own rule is the domain's (it names the refusal). */
export const OutputParams = lazy(() => built(WorkloadParams).extend({ name: z.string().min(1).max(256) }));
export const OutputQuery = lazy(() => z.object({ stage: z.string().max(128).optional(), member_id: z.string().max(128).optional() }));

const memberId = lazy(() => z.string().min(1).max(128).optional().describe('a member of a distributed group; no workload here is distributed'));

export const WorkloadLogQuery = lazy(() => z.object({
  stage: z.string().min(1).max(128).optional().describe('stage id; default the stage whose log started last'),
  generation: z.coerce.number().int().min(1).optional().describe('execution generation, from 1; default the latest'),
  member_id: built(memberId),
}));

export const LiveLogQuery = lazy(() => z.object({
  after: z.string().max(64).optional().describe('opaque cursor from the previous page; empty or absent starts at the beginning'),
  member_id: built(memberId),
}));

export const RLEventPageQuery = lazy(() => z.object({
  after: z.string().max(64).optional().describe('opaque cursor from a previous page; omit to start at the beginning'),
  limit: z.coerce.number().int().min(1).max(200).default(100),
}));

/** `revision` alone, once: a repeated one, a missing one or any other parameter is refused. */
export const GradingResultsQuery = lazy(() => z.strictObject({ revision: queryInteger(1, 2147483647) }));

/** The same bound: a longer id never names an asset either, and a shorter odd one reaches the domain's 404. */
export const AssetParams = lazy(() => built(WorkloadParams));

export const EnvironmentParams = lazy(() => z.object({ environment: z.string().min(1).max(128) }));
export const ExampleParams = lazy(() => built(EnvironmentParams).extend({ example: z.string().min(1).max(128) }));

/** PATCH /_mock/recipes/{id}: a catalog recipe id. */
export const RecipeParams = lazy(() => z.object({ id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/) }));
export const FaultParams = lazy(() => z.object({ id: z.string().min(1).max(64) }));
