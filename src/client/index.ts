// The typed SDK for frontends: the operation documents as TypedDocumentNodes, and createOrderClient.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { ClientError, GraphQLClient, type Variables } from 'graphql-request';
import type { ErrorCode } from '../errors.js';
import {
  LoginDocument,
  MeDocument,
  OrderByIdDocument,
  OrderSummaryDocument,
  RefreshTokensDocument,
  WholeOrderDocument,
  type TokenSetFieldsFragment,
} from './__generated__/graphql.js';

export * from './__generated__/graphql.js';
export { ORDER_STAGES } from '../upstream/contract.js';
export { AVAILABLE_FROM } from '../graph/order-fields.js';

/** The token set the API hands out; expirations are ISO 8601 UTC strings. */
export type Tokens = TokenSetFieldsFragment;

/** An error as the API sends it; `extensions.code` is what to switch on. */
export interface OrderGraphError {
  message: string;
  path?: ReadonlyArray<string | number>;
  extensions?: {
    code?: ErrorCode | 'PERSISTED_QUERY_NOT_FOUND' | (string & {});
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
  const client = new GraphQLClient(endpoint, { errorPolicy: 'all', fetch: persistedDocuments ? sendPersisted : fetchImpl });

  async function send<T, V extends Variables>(
    document: TypedDocumentNode<T, V>,
    variables: V | undefined,
    accessToken: string | null,
  ): Promise<OrderResult<T>> {
    const query = print(document);
    const hash = (document as Hashed).__meta__?.hash;
    if (hash) hashes.set(query, hash);
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
    const refused = result.errors.some((error) => error.extensions?.code === 'UNAUTHENTICATED');
    if (!refused || !tokens?.refreshToken) return result;
    // Another call may have renewed the tokens while this one was in flight.
    if (tokens.accessToken === usedToken) {
      try {
        await refresh();
      } catch {
        return result;
      }
    }
    return send(document, variables, tokens.accessToken);
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
