// What the SDK's calls give back: a typed result with the API's errors, or an OrderClientError.
import type { ApiErrorCode } from '../error-codes.js';

/** An error as the API sends it; `extensions.code` is what to switch on. */
export interface OrderGraphError {
  message: string;
  path?: ReadonlyArray<string | number>;
  extensions?: {
    code?: ApiErrorCode | (string & {});
    operation?: string;
    upstreamStatus?: number;
    retryAfterSeconds?: number;
  };
}

/**
 * A query's outcome. A failing field is null in `data` with its error in `errors`, and
 * its siblings still arrive: check `errors` for the parts you need, not for the whole.
 */
export interface OrderResult<T> {
  data: T | null;
  errors: OrderGraphError[];
}

/** Thrown when nothing usable came back: the API was unreachable, or login/refresh failed. */
export class OrderClientError extends Error {
  constructor(
    message: string,
    /** An API error code, or NETWORK_ERROR when the API could not be reached. */
    readonly code: string,
    readonly errors: OrderGraphError[] = [],
  ) {
    super(message);
    this.name = 'OrderClientError';
  }
}
