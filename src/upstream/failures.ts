// How an upstream failure becomes a GraphQL error: the one place that turns statuses into codes.
import {
  BadUserInputError,
  ForbiddenError,
  NotAvailableError,
  RateLimitedError,
  UnauthenticatedError,
  UpstreamFailedError,
  UpstreamBudgetExceededError,
  UpstreamTimeoutError,
  GatewayError,
  InternalServerError,
  type UpstreamErrorDetails,
} from '../errors.js';
import type { ByteBudget } from './bytes.js';
import { operationSpec, type OperationName } from './contract.js';
import type { UpstreamErrorBody } from './models.js';

/**
 * How a call to the upstream failed, as the HTTP layer saw it. The body is kept only to
 * read its `message` for a 4xx; it never reaches a client, a log or a trace.
 */
export type CallFailure =
  | { kind: 'status'; status: number; body: string; retryAfter?: string | undefined }
  | { kind: 'timeout' }
  | { kind: 'network'; code?: string | undefined }
  | { kind: 'malformed'; status: number }
  | { kind: 'oversized' }
  /** The client went away first: the call was not made, or was aborted. Nobody reads the answer. */
  | { kind: 'cancelled' }
  /** The gateway itself ran out of file handles (EMFILE, ENFILE): its own failure, not the upstream's. */
  | { kind: 'exhausted'; code: string }
  /** The request's upstream budget was spent: the call was not made. */
  | { kind: 'budget'; limit: number }
  /** The request's byte budget ended (bytes.ts): the call was not made, or its answer was cut off. */
  | { kind: 'bytes'; budget: ByteBudget }
  /** A parameter (an id from the upstream's own answer) that no call may carry: not made. */
  | { kind: 'unsendable' };

const MAX_UPSTREAM_MESSAGE = 200;

/** The contract's code for an operation asked before the order's stage allows it. */
const STAGE_NOT_ELIGIBLE = 'ORDER_STAGE_NOT_ELIGIBLE';

// Plain words, numbers and sentence punctuation; no slash, markup, equals sign, brackets, @ or
// line break, so no path, query, tag, address or stack can pass.
const PLAIN_TEXT = /^[\p{L}\p{N} ,.;:'’"()!?_-]+$/u;
const INTERNALS = [
  /\w\.\w/, // a host name, a file name, an IP address, a dotted token (a JWT)
  /:\S/, // a scheme (jdbc:…, http:…) or a port (:5432)
  /\b\w*(Error|Exception)\b:?/, // an exception's text
  /eyJ/, // the start of a JWT
  /\S{40,}/, // a token-like run of 40 characters without a space
];

/**
 * Whether an upstream message may reach the caller: a plain sentence, with no URL of any
 * scheme, host name, IP, path, query, JWT, stack frame or markup in it.
 */
export function isPlainSentence(message: string): boolean {
  return message.length <= MAX_UPSTREAM_MESSAGE && PLAIN_TEXT.test(message) && !INTERNALS.some((pattern) => pattern.test(message));
}

/** The upstream's own message, for a 4xx only, when it is a plain sentence. */
function clientMessage(body: string): string | undefined {
  let parsed: UpstreamErrorBody;
  try {
    parsed = JSON.parse(body) as UpstreamErrorBody;
  } catch {
    return undefined;
  }
  const message = typeof parsed === 'object' && parsed !== null ? parsed.message : undefined;
  return typeof message === 'string' && isPlainSentence(message.trim()) ? message.trim() : undefined;
}

function upstreamCode(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as UpstreamErrorBody;
    return typeof parsed?.code === 'string' ? parsed.code : undefined;
  } catch {
    return undefined;
  }
}

/** The longest wait an upstream's Retry-After may ask of a client: a day. */
const LONGEST_RETRY_AFTER_S = 86_400;

function retryAfterSeconds(header: string | undefined): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  const seconds = /^\d+$/.test(text) ? Number(text) : Math.ceil((Date.parse(text) - Date.now()) / 1000);
  return Number.isNaN(seconds) ? undefined : Math.min(LONGEST_RETRY_AFTER_S, Math.max(0, seconds));
}

/**
 * Whether a per-order lookup's failure is an answer after all, and the field null with no
 * error: a 404 (the thing does not exist, or not yet) or, from an operation the contract
 * gives a stage (`x-active-from`), its 409 ORDER_STAGE_NOT_ELIGIBLE (the order has not
 * reached that stage: `Order.availability` says so). Absence and "not yet" are data.
 */
export function isAbsence(operation: OperationName, failure: CallFailure): boolean {
  if (failure.kind !== 'status') return false;
  if (failure.status === 404) return true;
  return failure.status === 409 && operationSpec(operation).activeFrom !== undefined && upstreamCode(failure.body) === STAGE_NOT_ELIGIBLE;
}

/**
 * The one place where an upstream failure becomes a GraphQL error (the error table of
 * docs/ARCHITECTURE.md). An absence (`isAbsence`) never gets here for nested lookups: the
 * operation turns it into null first.
 */
export function toGraphQLError(operation: OperationName, failure: CallFailure): GatewayError {
  switch (failure.kind) {
    case 'timeout':
      return new UpstreamTimeoutError(`The upstream did not answer in time (${operation}).`, { operation });
    case 'network':
      return new UpstreamFailedError(`The upstream could not be reached (${operation}).`, { operation });
    case 'oversized':
      return new UpstreamFailedError(`The upstream sent an answer too large to accept (${operation}).`, { operation });
    case 'exhausted':
      return new InternalServerError('The gateway is short of resources right now: try again shortly.');
    case 'budget':
      return new UpstreamBudgetExceededError(
        `This request reached its budget of ${failure.limit} upstream calls, so ${operation} was not asked: ask for fewer orders at a time (orders(first:, after:)).`,
        { operation },
      );
    case 'bytes':
      return failure.budget.error({ operation });
    case 'unsendable':
      return new UpstreamFailedError(`The upstream's answer named an id that cannot be sent back to it (${operation}).`, { operation });
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
      if (upstreamCode(body) === STAGE_NOT_ELIGIBLE) {
        return new NotAvailableError(message ?? 'Not available at the order\'s current stage.', details);
      }
      return new UpstreamFailedError(message ?? `The upstream reported a conflict (${operation}).`, details);
    default:
      return new UpstreamFailedError(message ?? `The upstream refused the request (${operation}, status ${status}).`, details);
  }
}

