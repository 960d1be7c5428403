import type { Catalog } from '../domain/catalog/index.js';
import type { Config } from '../config.js';
import type { VirtualClock } from '../domain/clock.js';
import type { Materialiser } from '../domain/workloads/materialise.js';
import type { AppliedFault } from './faults.js';
import type { Store } from '../../store/index.js';

export interface Tenant {
  id: string;
  keyId: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    store: Store;
    clock: VirtualClock;
    catalog: Catalog;
    materialiser: Materialiser;
  }
  interface FastifyRequest {
    /** Set by the auth hook on every /v1 and /_mock request that got past it. */
    tenant: Tenant;
    /** The fault rule the fault hook applied to this request, if any. */
    fault: AppliedFault | null;
    /** The text of a JSON body as it arrived (kept by the JSON parser for the request journal). */
    rawBody: string | null;
  }
  interface FastifyContextConfig {
    /**
     * Maps the path of the first failing field (`querystring.limit`) to a more specific error
     * code than `invalid_request`, where the contract names one.
     */
    validationCodes?: Record<string, string>;
  }
}
