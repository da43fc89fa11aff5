// The SDK's operations: the typed queries, the deferred whole order and the live watch, each with the tokens' renewal.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import {
  MeDocument,
  OrderByIdDocument,
  OrderHistoryDocument,
  OrderHistoryPageDocument,
  OrderSummaryDocument,
  WholeOrderDeferredDocument,
  WholeOrderDocument,
} from './__generated__/graphql.js';
import { isRefused, type Auth } from './auth.js';
import type { OrderResult } from './results.js';
import type { Stream } from './transport.js';
import { watchOrders, type WatchOptions } from './watch.js';

/** A deferred query's payloads, started again once if the tokens were refused before any arrived. */
async function* deferred<T, V extends Record<string, unknown>>(
  auth: Auth,
  stream: Stream,
  document: TypedDocumentNode<T, V>,
  variables?: V,
  signal?: AbortSignal,
): AsyncGenerator<OrderResult<T>> {
  const usedToken = auth.tokens?.accessToken ?? null;
  let first = true;
  for await (const result of stream(document, variables, signal)) {
    // Refused before anything arrived: renew the tokens once and start again.
    if (first && isRefused(result) && (await auth.renewed(usedToken))) return yield* stream(document, variables, signal);
    first = false;
    yield result;
  }
}

/** A client made by createOrderClient. */
export type OrderClient = ReturnType<typeof createOperations>;

/** The client's methods: the tokens and their calls, then the operations, run as the signed-in customer. */
export function createOperations(auth: Auth, stream: Stream) {
  return {
    /** The current tokens, or null before login. */
    get tokens() {
      return auth.tokens;
    },
    login: auth.login,
    refresh: auth.refresh,
    /** The refresh token, handed over and forgotten: this client renews no more (its `tokens` show it empty); null without one. */
    releaseRefreshToken: auth.releaseRefreshToken,
    /** The customer and every order in full: the whole order in one request. */
    wholeOrder: () => auth.request(WholeOrderDocument),
    /**
     * The whole order as it arrives: the customer and the order list first, then each
     * per-order part as its upstream call returns. Each result is the order so far (a part
     * not yet arrived is absent); the last one is complete.
     */
    wholeOrderDeferred: () => deferred(auth, stream, WholeOrderDeferredDocument),
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
    watchOrders: (options?: WatchOptions) => watchOrders(auth, stream, options),
    /** Where each of the caller's orders stands, without the per-order details. */
    orderSummary: () => auth.request(OrderSummaryDocument),
    /** One of the caller's orders in full; `data.order` is null when the id is not the caller's. */
    order: (id: string) => auth.request(OrderByIdDocument, { id }),
    /**
     * What changed in each of the caller's orders and when, as the gateway observed it (a
     * query's or a live poll's reading of the order list): the newest `first` events of each
     * order (1–100, default 20), newest first; the oldest is the first observation.
     * `orderHistoryPage` reads on from an order's last `cursor`.
     */
    orderHistory: (first?: number) => auth.request(OrderHistoryDocument, first === undefined ? {} : { first }),
    /** One order's history, a page at a time: `after` is the last event's `cursor` of the previous page. */
    orderHistoryPage: (id: string, page: { first?: number; after?: string } = {}) =>
      auth.request(OrderHistoryPageDocument, { id, ...page }),
    me: () => auth.request(MeDocument),
    /** Any other typed document, with the same token handling. */
    request: auth.request,
    /**
     * Any other typed query with `@defer` or `@stream`, as it arrives: each result is the
     * order so far, the last one complete (as wholeOrderDeferred), with the same token
     * handling; `signal` stops it.
     */
    deferred: <T, V extends Record<string, unknown>>(document: TypedDocumentNode<T, V>, variables?: V, signal?: AbortSignal) =>
      deferred(auth, stream, document, variables, signal),
  };
}
