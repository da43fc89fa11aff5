// The SDK's streamed operations: a deferred query's payloads (multipart/mixed) and a
// subscription's events (GraphQL over SSE), with fetch alone, so a frontend gets no more
// than the SDK needs (no HTTP executor and its dependencies).
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print as printDocument, type DocumentNode, type GraphQLFormattedError } from 'graphql';
import type { OrderGraphError, OrderResult } from './results.js';
import { multipartParts, sseEvents } from './wire.js';

export interface StreamTransport {
  endpoint: string;
  fetch: typeof fetch;
  /** How a document is printed into the request (graphql's print by default). */
  print?: (document: DocumentNode) => string;
  /** The access token to send now (it changes when the tokens are renewed). */
  accessToken: () => string | null;
}

/** One result as sent: a whole one, or a deferred part (`incremental`) of the one before. */
interface Payload {
  data?: Record<string, unknown> | null;
  errors?: GraphQLFormattedError[];
  incremental?: { data?: Record<string, unknown>; items?: unknown[]; path: (string | number)[]; errors?: GraphQLFormattedError[] }[];
}

/** The error fields the API sends, nothing else. */
function apiError({ message, path, extensions }: GraphQLFormattedError): OrderGraphError {
  return {
    message,
    ...(path ? { path } : {}),
    ...(extensions && Object.keys(extensions).length > 0 ? { extensions: { ...extensions } } : {}),
  };
}

/** An error the transport made (the API could not be reached, the stream broke): it has no API code. */
export const isTransportFailure = (result: OrderResult<unknown>) =>
  result.errors.length > 0 && result.errors.every((error) => !error.extensions?.code);

const failure = (message: string): OrderResult<never> => ({ data: null, errors: [{ message }] });

/** The result so far with a payload added: a deferred part merged in at its path, a whole result in place of it. */
function merged(result: OrderResult<unknown>, payload: Payload): OrderResult<unknown> {
  if (!payload.incremental) return { data: payload.data ?? null, errors: (payload.errors ?? []).map(apiError) };
  const errors = [...result.errors, ...(payload.errors ?? []).map(apiError)];
  for (const { data, items, path, errors: partErrors = [] } of payload.incremental) {
    errors.push(...partErrors.map(apiError));
    let target: unknown = result.data;
    for (const key of path) target = (target as Record<string | number, unknown> | null)?.[key];
    if (items && Array.isArray(target)) target.push(...items);
    else if (data && target && typeof target === 'object') deepAssign(target as Record<string, unknown>, data);
  }
  return { data: result.data, errors };
}

function deepAssign(target: Record<string, unknown>, source: Record<string, unknown>) {
  for (const [key, value] of Object.entries(source)) {
    const present = target[key];
    if (present && value && typeof present === 'object' && typeof value === 'object' && !Array.isArray(value))
      deepAssign(present as Record<string, unknown>, value as Record<string, unknown>);
    else target[key] = value;
  }
}

/** The payloads of a response, by its content type: multipart parts, SSE events, or one JSON body. */
async function* payloads(response: Response): AsyncGenerator<Payload> {
  const type = response.headers.get('content-type') ?? '';
  const boundary = /^multipart\/mixed\b.*\bboundary="?([^";]+)"?/i.exec(type)?.[1];
  if (response.body && boundary) for await (const part of multipartParts(response.body, boundary)) yield JSON.parse(part) as Payload;
  else if (response.body && /^text\/event-stream\b/i.test(type))
    for await (const event of sseEvents(response.body)) yield JSON.parse(event) as Payload;
  else if (/json/i.test(type)) yield (await response.json()) as Payload;
  else throw new Error(`Order Graph answered ${response.status} with ${type || 'no content type'}, not GraphQL`);
}

export function createStreamTransport({ endpoint, fetch, print = printDocument, accessToken }: StreamTransport) {
  /** Every result the operation sends: one for a plain response, one per payload or event otherwise; a transport failure as a result without a code. */
  return async function* stream<T, V extends Record<string, unknown>>(
    document: TypedDocumentNode<T, V>,
    variables: V | undefined,
    signal?: AbortSignal,
  ): AsyncGenerator<OrderResult<T>> {
    const subscription = document.definitions.some(
      (definition) => definition.kind === 'OperationDefinition' && definition.operation === 'subscription',
    );
    const token = accessToken();
    let result: OrderResult<unknown> = { data: null, errors: [] };
    try {
      // POST with a JSON body for subscriptions too: never a "simple" request the gateway's CSRF check refuses.
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: subscription ? 'text/event-stream' : 'multipart/mixed, application/graphql-response+json, application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({ query: print(document), ...(variables ? { variables } : {}) }),
        ...(signal ? { signal } : {}),
      });
      for await (const payload of payloads(response)) {
        result = merged(result, payload);
        // Each result is a copy: the result keeps growing as deferred parts arrive.
        yield structuredClone(result) as OrderResult<T>;
      }
    } catch (error) {
      if (signal?.aborted) return;
      yield failure(error instanceof Error ? error.message : String(error));
    }
  };
}
