import { GraphQLError } from 'graphql';
import type { ErrorCode } from './error-codes.js';
import type { OperationName } from './upstream/contract.js';

export type { ErrorCode };

/** What an upstream-derived error adds to its extensions. */
export interface UpstreamErrorDetails {
  operation?: OperationName;
  upstreamStatus?: number;
  retryAfterSeconds?: number;
}

/** A client-facing error with a fixed code; yoga lets these through unmasked. */
export class GatewayError extends GraphQLError {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: UpstreamErrorDetails = {},
  ) {
    const extensions: Record<string, unknown> = { code };
    for (const [key, value] of Object.entries(details)) if (value !== undefined) extensions[key] = value;
    super(message, { extensions });
  }
}

// One class per code, so callers and tests can tell them apart with instanceof.
const withCode = (code: ErrorCode) =>
  class extends GatewayError {
    constructor(message: string, details?: UpstreamErrorDetails) {
      super(code, message, details);
    }
  };

export class UnauthenticatedError extends withCode('UNAUTHENTICATED') {}
export class ForbiddenError extends withCode('FORBIDDEN') {}
export class NotAvailableError extends withCode('NOT_AVAILABLE') {}
export class BadUserInputError extends withCode('BAD_USER_INPUT') {}
export class RateLimitedError extends withCode('RATE_LIMITED') {}
export class UpstreamTimeoutError extends withCode('UPSTREAM_TIMEOUT') {}
export class UpstreamFailedError extends withCode('UPSTREAM_ERROR') {}
export class UpstreamBudgetExceededError extends withCode('UPSTREAM_BUDGET_EXCEEDED') {}

/** The request carried no bearer token: no upstream call is made. */
export const missingTokenError = () =>
  new UnauthenticatedError('Not signed in: send "Authorization: Bearer <accessToken>" (the login mutation returns one).');

/** The bearer's `exp` has passed: no upstream call is made. */
export const expiredTokenError = () =>
  new UnauthenticatedError('The access token has expired: renew it with the refreshTokens mutation, or log in again.');
