// The SDK's HTTP side: a request and its response, the streamed operations, and registered documents sent by their hash alone.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print, type DocumentNode } from 'graphql';
import { ClientError, GraphQLClient, type Variables } from 'graphql-request';
import { OrderClientError, type OrderGraphError, type OrderResult } from './results.js';
import { createStreamTransport } from './streams.js';

type Hashed = { __meta__?: { hash?: string } };

/** Sends a document with this access token (none: null) and reads its response. */
export type Send = <T, V extends Variables>(
  document: TypedDocumentNode<T, V>,
  variables: V | undefined,
  accessToken: string | null,
) => Promise<OrderResult<T>>;

export type Stream = ReturnType<typeof createStreamTransport>;

export interface TransportOptions {
  endpoint: string;
  fetch: typeof fetch;
  /** Send the registered documents by hash only (the gateway's trusted documents). */
  persistedDocuments: boolean;
  /** The access token a stream sends now (it changes when the tokens are renewed). */
  accessToken: () => string | null;
}

/** A fetch that sends a registered document's hash in place of its text. */
function byHash(fetchImpl: typeof fetch, hashes: ReadonlyMap<string, string>): typeof fetch {
  return (input, init) => {
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
}

export function createTransport({ endpoint, fetch: fetchImpl, persistedDocuments, accessToken }: TransportOptions): {
  send: Send;
  stream: Stream;
} {
  // The printed query of each registered document, so its hash can stand in for it.
  const hashes = new Map<string, string>();

  /** The document as sent; a registered one is remembered, so its hash can stand in for it. */
  const printed = (document: DocumentNode) => {
    const query = print(document);
    const hash = (document as Hashed).__meta__?.hash;
    if (hash) hashes.set(query, hash);
    return query;
  };
  const transport = persistedDocuments ? byHash(fetchImpl, hashes) : fetchImpl;
  const client = new GraphQLClient(endpoint, { errorPolicy: 'all', fetch: transport });

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
      // A GraphQL response with a non-2xx status (a refused document, say) still has errors to read.
      if (error instanceof ClientError) {
        return { data: (error.response.data as T) ?? null, errors: (error.response.errors ?? []) as OrderGraphError[] };
      }
      throw new OrderClientError(`Order Graph could not be reached at ${endpoint}`, 'NETWORK_ERROR');
    }
  }

  return { send, stream: createStreamTransport({ endpoint, fetch: transport, print: printed, accessToken }) };
}
