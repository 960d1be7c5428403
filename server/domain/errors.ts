/**
 * What kind of refusal a domain rule makes; the HTTP layer answers each kind with its status
 * (server/http/api-error.ts). `unverifiable`: the mock cannot vouch for evidence it holds.
 */
export type Refusal = 'invalid' | 'unauthenticated' | 'over_budget' | 'forbidden' | 'not_found' | 'conflict' | 'unverifiable' | 'unavailable';

/**
 * The one error type of the domain. Everything a client can cause ends as one, with the code
 * and message a client reads, and the extra fields the contract adds for some codes.
 */
export class DomainError extends Error {
  constructor(
    readonly refusal: Refusal,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const badRequest = (code: string, message: string) => new DomainError('invalid', code, message);
export const invalidRequest = (message: string) => new DomainError('invalid', 'invalid_request', message);
export const notFound = (what: string) => new DomainError('not_found', 'not_found', `${what} not found`);
export const conflict = (code: string, message: string) => new DomainError('conflict', code, message);
