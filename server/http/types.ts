import type { Config } from '../config.js';
import type { UploadHold } from '../domain/assets/upload.js';
import type { AppliedFault } from '../domain/control/faults.js';
import type { Tenant } from '../domain/control/tenants.js';
import type { Services } from '../domain/services.js';
import type { onRequestHookHandler, onSendHookHandler, preHandlerHookHandler, preValidationHookHandler, RouteHandlerMethod } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    /** The newest workload --restore restored, for the start-up link; null without one. */
    restoredWorkload: string | null;
    services: Services;
    /** The key check, added by the /v1 and /_mock contexts (api-hooks.ts). */
    authenticate: onRequestHookHandler;
    /** The fault rules, applied by the /v1 context (api-hooks.ts). */
    faultHooks: { preValidation: preValidationHookHandler; onSend: onSendHookHandler };
    /** Recording /v1 requests and /_mock calls, and flushing before each /_mock handler (journal.ts). */
    journalHooks: { recordApi: onRequestHookHandler; recordControl: onRequestHookHandler; flushFirst: preHandlerHookHandler };
    /** The 404/405 answer of unknown paths (error-handler.ts). */
    notFound: RouteHandlerMethod;
  }
  interface FastifyRequest {
    /** Set by the auth hook on every /v1 and /_mock request that got past it. */
    tenant: Tenant;
    /** The fault rule the fault hook applied to this request, if any. */
    fault: AppliedFault | null;
    /** The text of a JSON body as it arrived (kept by the JSON parser for the request journal). */
    rawBody: string | null;
    /** What arrived of an asset upload, which the journal records instead of its bytes (routes/v1/assets.ts). */
    upload: { bytes: number; sha256: string | null } | null;
    /** Whether the answer is an earlier request's, replayed under its Idempotency-Key (the journal records it). */
    replayed: boolean;
    /** What this upload holds of the upload memory bounds (routes/v1/assets.ts). */
    uploadHold: UploadHold;
  }
  interface FastifyContextConfig {
    /**
     * Maps the path of the first failing field (`querystring.limit`) to a more specific error
     * code than `invalid_request`, where the contract names one.
     */
    validationCodes?: Record<string, string>;
    /** Top-level fields of a JSON body the request journal keeps as "[redacted]" (a secret, say). */
    journalRedact?: readonly string[];
    /** false: the request journal records no row of this route (the routes that read the journal). */
    journal?: false;
    /** Refusals of this route are SandboxError (`code`, `message`, `fix`, `url`), not `Error` (the secrets routes). */
    sandboxErrors?: boolean;
  }
}
