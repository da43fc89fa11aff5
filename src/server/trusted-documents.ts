// Trusted documents: the SDK's registered documents by hash (TRUSTED_DOCUMENTS), and their operation names.
import { readFileSync } from 'node:fs';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { requestErrorExtensions, type RequestErrorCode } from '../error-codes.js';

const TRUSTED_DOCUMENTS = new URL('../client/__generated__/persisted-documents.json', import.meta.url);

/** The registered documents (the client preset's manifest): each one's text by its "sha256:<hex>" hash. */
export const registeredDocuments = (): ReadonlyMap<string, string> =>
  new Map(Object.entries(JSON.parse(readFileSync(TRUSTED_DOCUMENTS, 'utf8')) as Record<string, string>));

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
      notFound: refused('This document is not one of the trusted documents: send the hash of a registered document.', 'PERSISTED_QUERY_NOT_FOUND'),
      persistedQueryOnly: refused(
        'Only trusted documents run here: send extensions.persistedQuery.sha256Hash of a registered document instead of a query.',
        'PERSISTED_QUERY_ONLY',
      ),
      keyNotFound: refused('Send a query, or the hash of a trusted document in extensions.persistedQuery.sha256Hash.', 'PERSISTED_QUERY_ID_REQUIRED'),
    },
  });
}

/** The operation names of the registered documents: the only ones metrics name (others are "other"). */
export function registeredOperationNames(): string[] {
  const documents = [...registeredDocuments().values()];
  return [...new Set(documents.flatMap((document) => [...document.matchAll(/\b(?:query|mutation|subscription)\s+(\w+)/g)].map((match) => match[1]!)))];
}
