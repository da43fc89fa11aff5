// The SDK's streamed operations: a deferred query's payloads (multipart/mixed) and a
// subscription's events (GraphQL over SSE), both through @graphql-tools/executor-http.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { buildHTTPExecutor } from '@graphql-tools/executor-http';
import type { DocumentNode, ExecutionResult, GraphQLFormattedError } from 'graphql';
import type { OrderGraphError, OrderResult } from './results.js';

export interface StreamTransport {
  endpoint: string;
  fetch: typeof fetch;
  /** How a document is printed into the request (graphql's print by default). */
  print?: (document: DocumentNode) => string;
  /** The access token to send now (it changes when the tokens are renewed). */
  accessToken: () => string | null;
}

/** The error fields the API sends; the transport's own additions (HTTP details) stay out. */
function apiError({ message, path, extensions }: GraphQLFormattedError): OrderGraphError {
  const { response: _response, request: _request, ...known } = (extensions ?? {}) as Record<string, unknown>;
  return { message, ...(path ? { path } : {}), ...(Object.keys(known).length > 0 ? { extensions: known } : {}) };
}

/** A snapshot of a result: the transport keeps merging payloads into one object, so each yield is a copy. */
function snapshot<T>(result: ExecutionResult<unknown>): OrderResult<T> {
  const { data, errors } = structuredClone({ data: result.data ?? null, errors: (result.errors ?? []).map((error) => apiError(error as GraphQLFormattedError)) });
  return { data: data as T | null, errors };
}

/** An error the transport made (the API could not be reached, the stream broke): it has no API code. */
export const isTransportFailure = (result: OrderResult<unknown>) => result.errors.length > 0 && result.errors.every((error) => !error.extensions?.code);

export function createStreamTransport({ endpoint, fetch, print, accessToken }: StreamTransport) {
  const executor = buildHTTPExecutor({
    endpoint,
    fetch,
    ...(print ? { print } : {}),
    // POST with a JSON body for subscriptions too: never a "simple" request the gateway's CSRF check refuses.
    method: 'POST',
    headers: (): Record<string, string> => {
      const token = accessToken();
      return token ? { authorization: `Bearer ${token}` } : {};
    },
  });

  /** Every result the operation sends: one for a plain answer, one per payload or event otherwise. */
  return async function* stream<T, V extends Record<string, unknown>>(
    document: TypedDocumentNode<T, V>,
    variables: V | undefined,
    signal?: AbortSignal,
  ): AsyncGenerator<OrderResult<T>> {
    const results = await executor({ document, variables, signal });
    if (!(Symbol.asyncIterator in results)) {
      yield snapshot<T>(results);
      return;
    }
    for await (const result of results) yield snapshot<T>(result);
  };
}
