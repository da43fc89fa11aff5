// Trusted documents: the registered documents by hash (TRUSTED_DOCUMENTS), the SDK's and the order-tracker page's, and their operation names.
import { readFileSync } from 'node:fs';
import { print, type DocumentNode } from 'graphql';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import * as sdk from '../client/__generated__/graphql.js';
import { requestErrorExtensions, type RequestErrorCode } from '../error-codes.js';

const TRUSTED_DOCUMENTS = new URL('../client/__generated__/persisted-documents.json', import.meta.url);
/** The order-tracker page's own (npm run build copies it beside the page; the gateway serves that page). */
export const TRACKER_DOCUMENTS = new URL('../../examples/order-tracker/src/gql/persisted-documents.json', import.meta.url);

/**
 * The registered documents (the client preset's manifests): each one's text by its
 * "sha256:<hex>" hash. An SDK document's text is the document as written, as the SDK sends it:
 * the manifest's own is normalized for hashing (fields sorted, fragment spreads after the
 * fields beside them), and an answer follows its document's selection order, so a document
 * sent by its hash would answer in that sorted order (WholeOrder's customer after its
 * orders) while the same document sent as text answers as written. The tracker page's run
 * as its manifest has them: the page reads its answers by name, never by order.
 */
export function registeredDocuments(): ReadonlyMap<string, string> {
  // Read and printed once: the gateway, its metrics, its document cache and both transports'
  // trusted-documents rule all ask for it at start-up.
  return (registered ??= readRegistered());
}

let registered: ReadonlyMap<string, string> | undefined;

function readRegistered(): ReadonlyMap<string, string> {
  const manifest = JSON.parse(readFileSync(TRUSTED_DOCUMENTS, 'utf8')) as Record<string, string>;
  const written = new Map<string, string>();
  for (const document of Object.values(sdk) as Array<DocumentNode & { __meta__?: { hash?: string } }>) {
    if (document?.__meta__?.hash) written.set(document.__meta__.hash, print(document));
  }
  const sdkDocuments = Object.keys(manifest).map((hash): [string, string] => {
    const text = written.get(hash);
    // Codegen writes both from the same documents: a mismatch is a stale generated file.
    if (text === undefined) throw new Error(`Trusted document ${hash} is not one of the SDK's documents: run npm run codegen`);
    return [hash, text];
  });
  const tracker = Object.entries(JSON.parse(readFileSync(TRACKER_DOCUMENTS, 'utf8')) as Record<string, string>);
  return new Map([...sdkDocuments, ...tracker]);
}

/**
 * Accepts the SDK's documents by hash (the client preset's manifest); in `only` mode
 * nothing else runs, so a stolen token cannot be used to run arbitrary queries.
 */
export function useTrustedDocuments(mode: 'allow' | 'only') {
  const manifest = registeredDocuments();
  const refused = (message: string, code: RequestErrorCode) => ({ message, extensions: requestErrorExtensions(code) });
  return usePersistedOperations({
    // The manifest keys are "sha256:<hex>"; Apollo-style clients send the bare hex.
    getPersistedOperation: (key) => manifest.get(key) ?? manifest.get(`sha256:${key}`) ?? null,
    allowArbitraryOperations: mode === 'allow',
    customErrors: {
      notFound: refused(
        'This document is not one of the trusted documents: send the hash of a registered document.',
        'PERSISTED_QUERY_NOT_FOUND',
      ),
      persistedQueryOnly: refused(
        'Only trusted documents run here: send extensions.persistedQuery.sha256Hash of a registered document instead of a query.',
        'PERSISTED_QUERY_ONLY',
      ),
      keyNotFound: refused(
        'Send a query, or the hash of a trusted document in extensions.persistedQuery.sha256Hash.',
        'PERSISTED_QUERY_ID_REQUIRED',
      ),
    },
  });
}

/** What a GraphQL request sends: the parameters the trusted-documents rule reads and may replace. */
export interface OperationParams {
  query?: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  extensions?: Record<string, unknown> | null;
}

/**
 * The same rule for an operation that does not come through yoga's HTTP handling (a
 * WebSocket message): the plugin's own `onParams` decides, so both transports accept and
 * refuse alike. Returns the parameters to run (a hash replaced by its document); throws the
 * plugin's GraphQLError for a refusal.
 */
export function trustedParams(mode: 'allow' | 'only'): (params: OperationParams) => OperationParams {
  const { onParams } = useTrustedDocuments(mode);
  return (params) => {
    let resolved = params;
    // With the manifest in memory the plugin decides at once: no promise to wait for.
    void onParams!({ params, setParams: (next: OperationParams) => (resolved = next), context: {} } as unknown as Parameters<
      NonNullable<typeof onParams>
    >[0]);
    return resolved;
  };
}

/** The operation names of the registered documents: the only ones metrics name (others are "other"). */
export function registeredOperationNames(): string[] {
  const documents = [...registeredDocuments().values()];
  return [
    ...new Set(
      documents.flatMap((document) => [...document.matchAll(/\b(?:query|mutation|subscription)\s+(\w+)/g)].map((match) => match[1]!)),
    ),
  ];
}
