import { DomainError, type Refusal } from '../domain/errors.js';

/** The status the contract gives each kind of domain refusal. */
const STATUS_OF: Record<Refusal, number> = {
  invalid: 400,
  unauthenticated: 401,
  over_budget: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unverifiable: 500,
  unavailable: 503,
};

/**
 * An answer in the contract's envelope `{"error", "message", ...extra}`, with its status. What the
 * HTTP layer refuses itself is one; a domain refusal becomes one by its kind.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  static of(err: DomainError): ApiError {
    return new ApiError(STATUS_OF[err.refusal], err.code, err.message, err.extra);
  }

  body(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.extra };
  }
}
