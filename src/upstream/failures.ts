// How an upstream failure becomes a GraphQL error: the one place that turns statuses into codes.
import {
  BadUserInputError,
  ForbiddenError,
  NotAvailableError,
  RateLimitedError,
  UnauthenticatedError,
  UpstreamFailedError,
  UpstreamTimeoutError,
  GatewayError,
  type UpstreamErrorDetails,
} from '../errors.js';
import type { OperationName } from './contract.js';
import type { UpstreamError } from './models.js';

/**
 * How a call to the upstream failed, as the HTTP layer saw it. The body is kept only to
 * read its `message` for a 4xx; it never reaches a client, a log or a trace.
 */
export type UpstreamFailure =
  | { kind: 'status'; status: number; body: string; retryAfter?: string | undefined }
  | { kind: 'timeout' }
  | { kind: 'network'; code?: string | undefined }
  | { kind: 'malformed'; status: number }
  | { kind: 'oversized' }
  /** The client went away first: the call was not made, or was aborted. Nobody reads the answer. */
  | { kind: 'cancelled' }
  /** The gateway itself ran out of file handles (EMFILE, ENFILE): its own failure, not the upstream's. */
  | { kind: 'exhausted'; code: string };

const MAX_UPSTREAM_MESSAGE = 300;

/** The upstream's own message, for a 4xx only, when it is short plain text. */
function clientMessage(body: string): string | undefined {
  let parsed: UpstreamError;
  try {
    parsed = JSON.parse(body) as UpstreamError;
  } catch {
    return undefined;
  }
  const message = typeof parsed === 'object' && parsed !== null ? parsed.message : undefined;
  if (typeof message !== 'string' || message.length === 0 || message.length > MAX_UPSTREAM_MESSAGE) return undefined;
  // A message that quotes a URL could carry a query string with an id or a token.
  if (/https?:\/\//i.test(message)) return undefined;
  return message;
}

function upstreamCode(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as UpstreamError;
    return typeof parsed?.code === 'string' ? parsed.code : undefined;
  } catch {
    return undefined;
  }
}

function retryAfterSeconds(header: string | undefined): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/**
 * The one place where an upstream failure becomes a GraphQL error (the error table of
 * docs/ARCHITECTURE.md). A 404 never gets here for nested lookups: the operation turns it
 * into null first.
 */
export function toGraphQLError(operation: OperationName, failure: UpstreamFailure): GatewayError {
  switch (failure.kind) {
    case 'timeout':
      return new UpstreamTimeoutError(`The upstream did not answer in time (${operation}).`, { operation });
    case 'network':
      return new UpstreamFailedError(`The upstream could not be reached (${operation}).`, { operation });
    case 'oversized':
      return new UpstreamFailedError(`The upstream sent an answer too large to accept (${operation}).`, { operation });
    case 'exhausted':
      return new GatewayError('INTERNAL_SERVER_ERROR', 'The gateway is short of resources right now: try again shortly.');
    case 'cancelled':
      return new UpstreamFailedError(`Not asked: the request was cancelled (${operation}).`, { operation });
    case 'malformed':
      return new UpstreamFailedError(`The upstream sent an answer that could not be read (${operation}).`, {
        operation,
        upstreamStatus: failure.status,
      });
    case 'status':
      break;
  }
  const { status, body } = failure;
  const details: UpstreamErrorDetails = { operation, upstreamStatus: status };
  if (status >= 500 || status < 400) {
    return new UpstreamFailedError(`The upstream failed (${operation}, status ${status}).`, details);
  }
  const message = clientMessage(body);
  switch (status) {
    case 401:
      return new UnauthenticatedError(message ?? 'The upstream refused the credentials.', details);
    case 403:
      return new ForbiddenError(message ?? 'Not allowed to see this.', details);
    case 400:
    case 422:
      return new BadUserInputError(message ?? 'The upstream rejected the request as invalid.', details);
    case 429:
      return new RateLimitedError(message ?? 'Too many requests: try again later.', {
        ...details,
        retryAfterSeconds: retryAfterSeconds(failure.retryAfter),
      });
    case 409:
      if (upstreamCode(body) === 'ORDER_STAGE_NOT_ELIGIBLE') {
        return new NotAvailableError(message ?? 'Not available at the order\'s current stage.', details);
      }
      return new UpstreamFailedError(message ?? `The upstream reported a conflict (${operation}).`, details);
    default:
      return new UpstreamFailedError(message ?? `The upstream refused the request (${operation}, status ${status}).`, details);
  }
}
