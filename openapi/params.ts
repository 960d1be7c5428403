import { z } from 'zod';

/**
 * Path parameters and query strings of the routes: with the bodies (the other modules here) they
 * are the whole contract of a request, validated before any of it reaches the domain.
 */
export const WorkloadParams = z.object({ id: z.string().min(1).max(128) });

export const EnvironmentParams = z.object({ environment: z.string().min(1).max(128) });
export const ExampleParams = EnvironmentParams.extend({ example: z.string().min(1).max(128) });

/** PATCH /_mock/recipes/{id}: a catalog recipe id. */
export const RecipeParams = z.object({ id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/) });
export const FaultParams = z.object({ id: z.string().min(1).max(64) });
