// The request guards together: graphql-armor's query limits, CSRF prevention, and the gateway's own refusals.
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import type { GraphQLError, ValidationContext } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { requestErrorExtensions } from '../../error-codes.js';
import { LIMITS } from '../limits.js';
import { useQuietErrors } from './quiet-errors.js';
import { useOperationChecks, useOperationRules } from './operation.js';
import { useAcceptHeader, useBodyLimit, useJsonParameters, useMediaTypes, useUncompressedBodies } from './request.js';

// A limit reports a validation error (400 GRAPHQL_VALIDATION_FAILED) instead of throwing,
// which would answer 200 with no code.
const asValidationError = {
  propagateOnRejection: false,
  onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(error)],
};

/**
 * CSRF prevention for POSTs: a POST a foreign page can send without a CORS preflight (a form,
 * `text/plain`, no content type) must carry one of these headers, which no such page can set.
 * A GET needs none (SECURITY.md, CSRF): it can only run a query (a mutation over GET is
 * refused with 405), and without the caller's bearer, which a foreign page cannot attach,
 * a query reads nothing but a refusal.
 */
function usePreflightedPosts(): Plugin {
  const { onRequestParse } = useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf', 'apollo-require-preflight'] });
  return {
    onRequestParse(payload) {
      if (payload.request.method === 'GET') return;
      try {
        return onRequestParse?.(payload);
      } catch {
        // The plugin's refusal has no code: this one is the same refusal, with its code.
        throw createGraphQLError(
          'A POST must be sent as application/json, or with an x-graphql-yoga-csrf or apollo-require-preflight header.',
          {
            extensions: requestErrorExtensions('PREFLIGHT_REQUIRED'),
          },
        );
      }
    },
  };
}

/**
 * Query limits (graphql-armor; their messages state the limit, as docs/limits.md does), CSRF
 * prevention, and the refusals that must come before any work is done. Introspection and field
 * suggestions ("did you mean …") are off together.
 */
export function useHardening({ introspection }: { introspection: boolean }): Plugin[] {
  return [
    EnvelopArmorPlugin({
      maxDepth: { n: LIMITS.maxDepth, flattenFragments: true, ...asValidationError },
      maxAliases: { n: LIMITS.maxAliases, ...asValidationError },
      maxTokens: { n: LIMITS.maxTokens },
      maxDirectives: { n: LIMITS.maxDirectives, ...asValidationError },
      // The cost is counted before execution instead (guards/operation.ts), where the
      // variables are known: armor's rule sees literals only, so `first: 16` weighed 16 times
      // what `first: $n` did.
      costLimit: { enabled: false },
      // Hidden by useQuietErrors instead, which also covers enum values and variables.
      blockFieldSuggestion: { enabled: false },
    }) as Plugin,
    // First: every later guard reads the content type as it means.
    useMediaTypes(),
    usePreflightedPosts(),
    useAcceptHeader(),
    useUncompressedBodies(),
    useBodyLimit(),
    useJsonParameters(),
    useOperationRules({ introspection }),
    useOperationChecks(),
    useQuietErrors({ hideSuggestions: !introspection }),
  ];
}
