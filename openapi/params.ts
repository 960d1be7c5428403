import { z } from 'zod';

/**
 * Path parameters and query strings of the routes: with the bodies (the other modules here) they
 * are the whole contract of a request, validated before any of it reaches the domain.
 */
export const WorkloadParams = z.object({ id: z.string().min(1).max(128) });
/** The same bound: a longer id never names an asset either, and a shorter odd one reaches the domain's 404. */
export const AssetParams = WorkloadParams;
