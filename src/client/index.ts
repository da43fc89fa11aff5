// The typed SDK for frontends: the operation documents as TypedDocumentNodes, and createOrderClient.
import { createAuth, type Tokens } from './auth.js';
import { createOperations, type OrderClient } from './operations.js';
import { createTransport } from './transport.js';

export * from './__generated__/graphql.js';
export * from './results.js';
export { ORDER_STAGES, STAGE_WORDS, stageWords } from '../upstream/contract.js';
export { AVAILABLE_FROM } from '../graph/order-fields.js';
export type { Tokens } from './auth.js';
export type { OrderClient } from './operations.js';
export type { WatchOptions } from './watch.js';

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

/**
 * A typed client for Order Graph. Each method's result is typed from its document's
 * selection. On UNAUTHENTICATED it renews the tokens once with the refresh token it holds
 * (one refresh however many calls fail together), retries, and reports the new tokens.
 */
export function createOrderClient({
  endpoint,
  tokens = null,
  onTokens,
  persistedDocuments = false,
  fetch: fetchImpl = fetch,
}: OrderClientOptions): OrderClient {
  // A stream reads the access token when it starts, so it sends the latest renewed one.
  const { send, stream } = createTransport({
    endpoint,
    fetch: fetchImpl,
    persistedDocuments,
    accessToken: () => auth.tokens?.accessToken ?? null,
  });
  const auth = createAuth(send, { tokens, onTokens });
  return createOperations(auth, stream);
}
