// The gateway's client-facing errors: one GraphQLError class per field code, and the messages an error rebuilt from its code says.
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
export class AnswerTooLargeError extends withCode('ANSWER_TOO_LARGE') {}
export class OverloadedError extends withCode('OVERLOADED') {}
export class InternalServerError extends withCode('INTERNAL_SERVER_ERROR') {}

/** The request carried no bearer token: no upstream call is made. */
export const missingTokenError = () =>
  new UnauthenticatedError('Not signed in: send "Authorization: Bearer <accessToken>" (the login mutation returns one).');

/** The bearer's `exp` has passed: no upstream call is made. */
export const expiredTokenError = () =>
  new UnauthenticatedError('The access token has expired: renew it with the refreshTokens mutation, or log in again.');

/** The gateway's own message for each code: what an error rebuilt from its code alone says. */
const MESSAGES: Record<ErrorCode, string> = {
  UNAUTHENTICATED: 'The upstream refused the credentials.',
  FORBIDDEN: 'Not allowed to see this.',
  NOT_AVAILABLE: "Not available at the order's current stage.",
  BAD_USER_INPUT: 'The upstream rejected the request as invalid.',
  RATE_LIMITED: 'Too many requests: try again later.',
  UPSTREAM_TIMEOUT: 'The upstream did not answer in time.',
  UPSTREAM_ERROR: 'The upstream failed.',
  UPSTREAM_BUDGET_EXCEEDED: 'This request reached its budget of upstream calls.',
  ANSWER_TOO_LARGE: 'This request reached its budget of bytes: ask for fewer orders or fields at a time.',
  OVERLOADED: 'The gateway is holding as much as it may for the requests in flight: try again in a moment.',
  INTERNAL_SERVER_ERROR: 'Unexpected error.',
};

/**
 * An error from its code and details alone, with the gateway's own message: what another
 * process reported (a live poll's failure over Redis) never carries text of its own.
 */
export const errorFromCode = (code: ErrorCode, details: UpstreamErrorDetails = {}) => new GatewayError(code, MESSAGES[code], details);
