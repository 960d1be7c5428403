/**
 * The one error type. Everything a client can cause ends as an ApiError, which the error handler
 * turns into the contract's envelope `{"error", "message", ...extra}`.
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

  body(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.extra };
  }
}

export const badRequest = (code: string, message: string) => new ApiError(400, code, message);
export const invalidRequest = (message: string) => new ApiError(400, 'invalid_request', message);
export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} not found`);
export const conflict = (code: string, message: string) => new ApiError(409, code, message);
