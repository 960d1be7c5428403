import { z } from 'zod';

/**
 * Path parameters and query strings of the routes: with the bodies (the other modules here) they
 * are the whole contract of a request, validated before any of it reaches the domain.
 */
export const WorkloadParams = z.object({ id: z.string().min(1).max(128) });

/** GET /v1/workloads/{id}/outputs/{name}; the name's own rule is the domain's (it names the refusal). */
export const OutputParams = WorkloadParams.extend({ name: z.string().min(1).max(256) });
export const OutputQuery = z.object({ stage: z.string().max(128).optional(), member_id: z.string().max(128).optional() });
