// What each request holds in bytes, on every transport: new work refused while the process has no
// room (503 OVERLOADED), each answer's size counted before it is written (ANSWER_TOO_LARGE past
// the request's budget), and the request's bytes given back when its response is done.
import type { ExecutionResult } from 'graphql';
import { createGraphQLError, isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { GatewayError } from '../errors.js';
import type { ByteBudget, ByteCeiling } from '../upstream/bytes.js';
import type { CallScope } from '../upstream/scope.js';
import { requestOf, type ScopeSettings, type ServerContext } from './request-scope.js';

// What JSON adds around a value: quotes, a colon and a comma; an object's braces.
const STRING_EXTRA = 3;
const NUMBER_BYTES = 8;

/**
 * The size of a value as JSON, estimated from its strings' lengths (UTF-16 code units), without
 * making the text: counting stops once past `limit` (the result is then above it). Plain objects,
 * arrays and leaves only, as an execution result holds.
 */
export function jsonBytes(value: unknown, limit: number): number {
  let size = 0;
  const add = (item: unknown): void => {
    if (size > limit) return;
    if (typeof item === 'string') size += item.length + STRING_EXTRA;
    else if (item === null || typeof item !== 'object') size += NUMBER_BYTES;
    else if (Array.isArray(item)) {
      size += 2;
      for (const each of item) add(each);
    } else {
      size += 2;
      for (const key in item) {
        size += key.length + STRING_EXTRA;
        add((item as Record<string, unknown>)[key]);
      }
    }
  };
  add(value);
  return size;
}

/** A byte budget's error as a result carries it; with `status`, the HTTP status and Retry-After OVERLOADED asks for. */
function resultError(error: GatewayError, status: boolean) {
  const { retryAfterSeconds } = error.details;
  const http =
    status && error.code === 'OVERLOADED' ? { http: { status: 503, headers: { 'retry-after': String(retryAfterSeconds) } } } : {};
  return createGraphQLError(error.message, { extensions: { ...error.extensions, ...http } });
}

/**
 * The result as it may be written: counted against the request's byte budget (its upstream
 * answers are counted already), or in its place, once the budget has ended (there or before, by
 * the request's own limit or to make room for others), `data` null and the budget's error alone
 * (a streamed answer's last payload). An event's result carries no HTTP status.
 */
export function answerWithin(budget: ByteBudget, result: ExecutionResult, { streamed = false, event = false } = {}): ExecutionResult {
  if (!budget.ended) {
    const room = budget.limit - budget.held;
    budget.take(Math.min(jsonBytes(result, room), room + 1));
  }
  if (!budget.ended) return result;
  return { data: null, errors: [resultError(budget.error(), !event)], ...(streamed ? { hasNext: false } : {}) };
}

/** A stream's payloads within the budget: the one past it is the budget's error, and the last. */
async function* streamWithin(budget: ByteBudget, payloads: AsyncIterable<ExecutionResult>): AsyncGenerator<ExecutionResult> {
  for await (const payload of payloads) {
    const within = answerWithin(budget, payload, { streamed: true });
    yield within;
    if (within !== payload) return;
  }
}

const scopeOf = (contextValue: unknown) => (contextValue as { scope?: CallScope }).scope;
/** The Node response of a request that came over a socket (yoga's node adapter puts it in the server context). */
const responseOf = (serverContext: ServerContext) =>
  (serverContext as { res?: { once(event: 'close', listener: () => void): unknown } }).res;

/**
 * Byte budgets on every transport: a query, mutation or subscription is refused (OVERLOADED,
 * 503 with Retry-After) while the ceiling admits no new work (bytes.ts); each answer, and each payload of a
 * streamed one, is counted before it is written; an HTTP request's bytes are given back once its
 * response is sent or its client gone, a WebSocket operation's when it completes (websocket.ts),
 * a live event's once it is answered (event-contexts.ts).
 */
export function useHeldBytes(ceiling: ByteCeiling, policy: ScopeSettings): Plugin<Record<string, unknown>, ServerContext> {
  const refused = (): ExecutionResult => ({ errors: [resultError(ceiling.overloaded(), true)] });
  return {
    onSubscribe({ setResultAndStopExecution }) {
      if (!ceiling.admits()) setResultAndStopExecution(refused());
    },
    onExecute({ args, setResultAndStopExecution }) {
      const scope = scopeOf(args.contextValue);
      if (!scope) return;
      if (!ceiling.admits()) return void setResultAndStopExecution(refused());
      return {
        onExecuteDone({ result, setResult }) {
          if (isAsyncIterable(result)) return void setResult(streamWithin(scope.bytes, result));
          const within = answerWithin(scope.bytes, result);
          if (within !== result) setResult(within);
        },
      };
    },
    // Over a socket, once the response is sent or its client is gone, whatever happened on the
    // way (an answer that ends early included); in process, once it is made.
    onRequest({ request, serverContext }) {
      const { bytes } = requestOf(serverContext, request, policy).scope;
      responseOf(serverContext)?.once('close', () => bytes.release());
    },
    onResponse({ request, serverContext }) {
      if (!responseOf(serverContext)) requestOf(serverContext, request, policy).scope.bytes.release();
    },
  };
}
