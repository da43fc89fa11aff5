// The typed SDK for frontends: the operation documents as TypedDocumentNodes, and createOrderClient.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print, type DocumentNode } from 'graphql';
import { ClientError, GraphQLClient, type Variables } from 'graphql-request';
import {
  LoginDocument,
  MeDocument,
  OrderByIdDocument,
  OrderSummaryDocument,
  OrderUpdatesDocument,
  RefreshTokensDocument,
  WholeOrderDeferredDocument,
  WholeOrderDocument,
  type OrderUpdatesSubscription,
  type WholeOrderDeferredQuery,
  type TokenSetFieldsFragment,
} from './__generated__/graphql.js';
import type { ApiErrorCode } from '../error-codes.js';
import { OrderClientError, type OrderGraphError, type OrderResult } from './results.js';
import { createStreamTransport, isTransportFailure } from './streams.js';

export * from './__generated__/graphql.js';
export * from './results.js';
export { ORDER_STAGES } from '../upstream/contract.js';
export { AVAILABLE_FROM } from '../graph/order-fields.js';

/** The token set the API hands out; expirations are ISO 8601 UTC strings. */
export type Tokens = TokenSetFieldsFragment;

export interface OrderClientOptions {
  /** The GraphQL endpoint, e.g. http://127.0.0.1:4000/graphql. */
  endpoint: string;
  /** Tokens from an earlier session, if any. */
  tokens?: Tokens | null;
  /** Called with every new token set (login, refresh): store them where your app keeps them. */
  onTokens?: (tokens: Tokens) => void;
  /**
   * Send the registered documents by hash only (the gateway's trusted documents,
   * `TRUSTED_DOCUMENTS=only`). Off by default.
   */
  persistedDocuments?: boolean;
  /** A fetch to use instead of the global one (tests, custom agents). */
  fetch?: typeof fetch;
}

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
const FINAL_CODES: ReadonlySet<string> = new Set<ApiErrorCode>(['BAD_USER_INPUT', 'RATE_LIMITED', 'FORBIDDEN', 'GRAPHQL_VALIDATION_FAILED', 'BAD_REQUEST', 'PERSISTED_QUERY_NOT_FOUND']);
const MAX_RETRY_DELAY_MS = 30_000;
/** The gateway's default LIVE_POLL_INTERVAL_MS. */
const DEFAULT_MIN_INTERVAL_MS = 30_000;
/** The longest delay a timer keeps (browsers and Node alike fire longer ones at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

const isRefused = (result: OrderResult<unknown>) => result.errors.some((error) => error.extensions?.code === 'UNAUTHENTICATED');

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

type Hashed = { __meta__?: { hash?: string } };

/**
 * A typed client for Order Graph. Each method's result is typed from its document's
 * selection. On UNAUTHENTICATED it renews the tokens once with the refresh token it holds
 * (one refresh however many calls fail together), retries, and reports the new tokens.
 */
export function createOrderClient({ endpoint, tokens: initialTokens = null, onTokens, persistedDocuments = false, fetch: fetchImpl = fetch }: OrderClientOptions) {
  let tokens = initialTokens;
  let refreshing: Promise<Tokens> | null = null;
  // The printed query of each registered document, so its hash can stand in for it.
  const hashes = new Map<string, string>();

  /** The document as sent; a registered one is remembered, so its hash can stand in for it. */
  const printed = (document: DocumentNode) => {
    const query = print(document);
    const hash = (document as Hashed).__meta__?.hash;
    if (hash) hashes.set(query, hash);
    return query;
  };
  const sendPersisted: typeof fetch = (input, init) => {
    if (typeof init?.body === 'string') {
      const body = JSON.parse(init.body) as { query?: string; extensions?: Record<string, unknown> };
      const hash = body.query && hashes.get(body.query);
      if (hash) {
        delete body.query;
        body.extensions = { ...body.extensions, persistedQuery: { version: 1, sha256Hash: hash } };
        return fetchImpl(input, { ...init, body: JSON.stringify(body) });
      }
    }
    return fetchImpl(input, init);
  };
  const transport = persistedDocuments ? sendPersisted : fetchImpl;
  const client = new GraphQLClient(endpoint, { errorPolicy: 'all', fetch: transport });
  const stream = createStreamTransport({ endpoint, fetch: transport, print: printed, accessToken: () => tokens?.accessToken ?? null });

  async function send<T, V extends Variables>(
    document: TypedDocumentNode<T, V>,
    variables: V | undefined,
    accessToken: string | null,
  ): Promise<OrderResult<T>> {
    const query = printed(document);
    const headers: Record<string, string> = accessToken ? { authorization: `Bearer ${accessToken}` } : {};
    try {
      const response = await client.rawRequest<T, V>(query, variables, headers);
      return { data: response.data ?? null, errors: (response.errors ?? []) as OrderGraphError[] };
    } catch (error) {
      // A GraphQL answer with a non-2xx status (a refused document, say) still has errors to read.
      if (error instanceof ClientError) {
        return { data: (error.response.data as T) ?? null, errors: (error.response.errors ?? []) as OrderGraphError[] };
      }
      throw new OrderClientError(`Order Graph could not be reached at ${endpoint}`, 'NETWORK_ERROR');
    }
  }

  function keep(next: Tokens): Tokens {
    tokens = next;
    onTokens?.(next);
    return next;
  }

  async function tokenMutation<T>(result: OrderResult<T>, pick: (data: T) => Tokens, what: string): Promise<Tokens> {
    if (!result.data || result.errors.length > 0) {
      const first = result.errors[0];
      throw new OrderClientError(first?.message ?? `${what} failed`, first?.extensions?.code ?? 'UNKNOWN', result.errors);
    }
    return keep(pick(result.data));
  }

  /** Renews the tokens; concurrent callers share one refresh. */
  function refresh(): Promise<Tokens> {
    const refreshToken = tokens?.refreshToken;
    if (!refreshToken) return Promise.reject(new OrderClientError('No refresh token: log in first', 'UNAUTHENTICATED'));
    refreshing ??= send(RefreshTokensDocument, { refreshToken }, tokens?.accessToken ?? null)
      .then((result) => tokenMutation(result, (data) => data.refreshTokens, 'Refreshing the tokens'))
      .finally(() => {
        refreshing = null;
      });
    return refreshing;
  }

  /** Runs a document as the signed-in customer, renewing the tokens once if they were refused. */
  async function request<T, V extends Variables>(document: TypedDocumentNode<T, V>, variables?: V): Promise<OrderResult<T>> {
    const usedToken = tokens?.accessToken ?? null;
    const result = await send(document, variables, usedToken);
    if (!isRefused(result) || !(await renewed(usedToken))) return result;
    return send(document, variables, tokens!.accessToken);
  }

  /** After a refusal of `usedToken`: whether there are newer tokens to try (renewing them if need be). */
  async function renewed(usedToken: string | null): Promise<boolean> {
    if (!tokens?.refreshToken) return false;
    // Another call may have renewed the tokens while this one was in flight.
    if (tokens.accessToken !== usedToken) return true;
    try {
      await refresh();
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The whole order as it arrives: the customer and the order list first, then each
   * per-order part as its upstream call returns. Each result is the answer so far (a part
   * not yet arrived is absent); the last one is complete.
   */
  async function* wholeOrderDeferred(): AsyncGenerator<OrderResult<WholeOrderDeferredQuery>> {
    const usedToken = tokens?.accessToken ?? null;
    let first = true;
    for await (const result of stream(WholeOrderDeferredDocument, undefined)) {
      // Refused before anything arrived: renew the tokens once and start again.
      if (first && isRefused(result) && (await renewed(usedToken))) return yield* stream(WholeOrderDeferredDocument, undefined);
      first = false;
      yield result;
    }
  }

  /**
   * The customer's orders as they change, over GraphQL over SSE: the current state of each
   * order first (`changes: []`), then an event whenever an order record changes. It keeps
   * watching until `signal` aborts or the loop breaks: when the access token expires it
   * renews the tokens and subscribes again, and when the stream ends (the gateway restarts,
   * the network drops) it subscribes again, never sooner than `minIntervalMs` after the
   * previous subscription and, while streams keep ending without an update, after a wait that
   * doubles from `retryDelayMs` up to 30 s. A state it already reported is not repeated after
   * subscribing again; a state that changed meanwhile arrives with `changes: []`. Upstream
   * failures arrive as results with errors, and watching goes on. Throws an OrderClientError
   * for what subscribing again cannot fix (BAD_USER_INPUT for an orderId that is not the
   * customer's, RATE_LIMITED for too many streams or orders too large to follow live) and
   * when the tokens cannot be renewed.
   */
  async function* watchOrders({ orderId, signal, retryDelayMs = 1000, minIntervalMs = DEFAULT_MIN_INTERVAL_MS }: WatchOptions = {}): AsyncGenerator<OrderResult<OrderUpdatesSubscription>> {
    const firstDelay = milliseconds('retryDelayMs', retryDelayMs);
    const interval = milliseconds('minIntervalMs', minIntervalMs);
    const reported = new Map<string, string>();
    // Streams in a row that ended without an update: the wait before the next one doubles with them.
    let failures = 0;
    // Refusals since the last answer: a renewed token refused again will not do better.
    let refusals = 0;
    let subscribedAt = -Infinity;
    while (!signal?.aborted) {
      // Each subscription costs the gateway the customer's current state: one per interval at most.
      await pause(subscribedAt + interval - Date.now(), signal);
      if (signal?.aborted) return;
      subscribedAt = Date.now();
      const usedToken = tokens?.accessToken ?? null;
      let refused = false;
      for await (const result of stream(OrderUpdatesDocument, orderId ? { orderId } : {}, signal)) {
        if (signal?.aborted) return;
        const code = result.errors.find((error) => error.extensions?.code)?.extensions?.code;
        if (code && FINAL_CODES.has(code)) throw new OrderClientError(result.errors[0]!.message, code, result.errors);
        if (isRefused(result)) {
          refused = true;
          break;
        }
        if (isTransportFailure(result)) break;
        // The token passed; only an update shows the stream works.
        refusals = 0;
        const update = result.data?.orderUpdates;
        if (update) {
          failures = 0;
          const state = JSON.stringify(update.order);
          if (update.changes.length === 0 && reported.get(update.order.id) === state) continue;
          reported.set(update.order.id, state);
        }
        yield result;
      }
      if (refused) {
        if (++refusals > 1 || !(await renewed(usedToken))) throw new OrderClientError('The access token was refused and could not be renewed: log in again', 'UNAUTHENTICATED');
        continue;
      }
      await pause(Math.min(firstDelay * 2 ** failures++, MAX_RETRY_DELAY_MS), signal);
    }
  }

  return {
    /** The current tokens, or null before login. */
    get tokens() {
      return tokens;
    },
    async login(username: string, password: string): Promise<Tokens> {
      return tokenMutation(await send(LoginDocument, { username, password }, null), (data) => data.login, 'Login');
    },
    refresh,
    /** The customer and every order in full: the whole order in one request. */
    wholeOrder: () => request(WholeOrderDocument),
    wholeOrderDeferred,
    watchOrders,
    /** Where each of the caller's orders stands, without the per-order details. */
    orderSummary: () => request(OrderSummaryDocument),
    /** One of the caller's orders in full; `data.order` is null when the id is not the caller's. */
    order: (id: string) => request(OrderByIdDocument, { id }),
    me: () => request(MeDocument),
    /** Any other typed document, with the same token handling. */
    request,
  };
}

export type OrderClient = ReturnType<typeof createOrderClient>;
