// The SDK's live watch: the orderUpdates subscription kept up across renewed tokens and ended streams, no state reported twice.
import type { ApiErrorCode } from '../error-codes.js';
import { OrderUpdatesDocument, type OrderUpdatesSubscription, type OrderUpdatesSubscriptionVariables } from './__generated__/graphql.js';
import { isRefused, type Auth } from './auth.js';
import { OrderClientError, type OrderResult } from './results.js';
import { isTransportFailure } from './streams.js';
import type { Stream } from './transport.js';

export interface WatchOptions {
  /** Only this order (its `id`); all of the customer's orders when absent. */
  orderId?: string;
  /** Stops watching: the stream closes and the iteration ends. */
  signal?: AbortSignal;
  /**
   * The least time between two subscriptions, in ms: the gateway polls the upstream once per
   * interval (its LIVE_POLL_INTERVAL_MS), and each subscription costs it the customer's current
   * state, so subscribing again sooner gains nothing. Set it to your gateway's interval.
   * Default 30000, the gateway's default.
   */
  minIntervalMs?: number;
  /** The first wait before subscribing again after the stream ended; it doubles, up to 30 s, while streams end without an update. Default 1000. */
  retryDelayMs?: number;
}

/** Errors of the caller's own making: subscribing again cannot help, so watchOrders throws them. */
const FINAL_CODES: ReadonlySet<string> = new Set<ApiErrorCode>([
  'BAD_USER_INPUT',
  'RATE_LIMITED',
  'FORBIDDEN',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
]);
const MAX_RETRY_DELAY_MS = 30_000;
/** The gateway's default LIVE_POLL_INTERVAL_MS. */
const DEFAULT_MIN_INTERVAL_MS = 30_000;
/** The longest delay a timer keeps (browsers and Node alike fire longer ones at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Waits `ms` (in steps, however long), unless the signal stops it first. */
const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (!(ms > 0) || signal?.aborted) return resolve();
    const until = Date.now() + ms;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const step = () => {
      const left = until - Date.now();
      if (left > 0) timer = setTimeout(step, Math.min(left, MAX_TIMER_MS));
      else done();
    };
    signal?.addEventListener('abort', done, { once: true });
    step();
  });

/** A watch option in ms: a finite number from 0. */
function milliseconds(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new TypeError(`watchOrders: ${name} must be a number of milliseconds from 0`);
  return value;
}

/** What watching carries from one subscription to the next. */
interface Watching {
  /** Each order's last reported state, so that subscribing again repeats none. */
  reported: Map<string, string>;
  /** Streams in a row that ended without an update: the wait before the next one doubles with them. */
  failures: number;
  /** Refusals since the last response: a renewed token refused again will not do better. */
  refusals: number;
}

/**
 * One subscription's results, states already reported left out. Throws what subscribing
 * again cannot fix; returns true when the access token was refused, false when the stream
 * ended or broke (or watching was stopped).
 */
async function* subscription(
  stream: Stream,
  variables: OrderUpdatesSubscriptionVariables,
  signal: AbortSignal | undefined,
  watching: Watching,
): AsyncGenerator<OrderResult<OrderUpdatesSubscription>, boolean> {
  for await (const result of stream(OrderUpdatesDocument, variables, signal)) {
    if (signal?.aborted) return false;
    const code = result.errors.find((error) => error.extensions?.code)?.extensions?.code;
    if (code && FINAL_CODES.has(code)) throw new OrderClientError(result.errors[0]!.message, code, result.errors);
    if (isRefused(result)) return true;
    if (isTransportFailure(result)) return false;
    // The token passed; only an update shows the stream works.
    watching.refusals = 0;
    const update = result.data?.orderUpdates;
    if (update) {
      watching.failures = 0;
      const state = JSON.stringify(update.order);
      if (update.changes.length === 0 && watching.reported.get(update.order.id) === state) continue;
      watching.reported.set(update.order.id, state);
    }
    yield result;
  }
  return false;
}

/**
 * Subscriptions, one after another, for as long as watching goes on: at most one per
 * `minIntervalMs`, after a doubling wait while they end without an update, after renewing
 * the tokens once when they were refused (what it promises is on the client's watchOrders, operations.ts).
 */
export async function* watchOrders(
  auth: Auth,
  stream: Stream,
  { orderId, signal, retryDelayMs = 1000, minIntervalMs = DEFAULT_MIN_INTERVAL_MS }: WatchOptions = {},
): AsyncGenerator<OrderResult<OrderUpdatesSubscription>> {
  const firstDelay = milliseconds('retryDelayMs', retryDelayMs);
  const interval = milliseconds('minIntervalMs', minIntervalMs);
  const watching: Watching = { reported: new Map(), failures: 0, refusals: 0 };
  let subscribedAt = -Infinity;
  while (!signal?.aborted) {
    // Each subscription costs the gateway the customer's current state: one per interval at most.
    await pause(subscribedAt + interval - Date.now(), signal);
    if (signal?.aborted) return;
    subscribedAt = Date.now();
    const usedToken = auth.tokens?.accessToken ?? null;
    const refused = yield* subscription(stream, orderId ? { orderId } : {}, signal, watching);
    if (refused) {
      if (++watching.refusals > 1 || !(await auth.renewed(usedToken)))
        throw new OrderClientError('The access token was refused and could not be renewed: log in again', 'UNAUTHENTICATED');
      continue;
    }
    await pause(Math.min(firstDelay * 2 ** watching.failures++, MAX_RETRY_DELAY_MS), signal);
  }
}
