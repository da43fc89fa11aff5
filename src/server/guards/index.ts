// The request guards together: graphql-armor's query limits, CSRF prevention, and the gateway's own refusals.
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import type { GraphQLError, ValidationContext } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LIMITS } from '../limits.js';
import { useQuietErrors } from './answers.js';
import { useOperationChecks, useOperationRules } from './operation.js';
import { useAcceptableAnswers, useJsonParameters, useUncompressedBodies } from './request.js';

// A limit reports a validation error (400 GRAPHQL_VALIDATION_FAILED) instead of throwing,
// which would answer 200 with no code.
const asValidationError = {
  propagateOnRejection: false,
  onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(error)],
};

/**
 * Query limits (graphql-armor; their messages state the limit, as SECURITY.md does), CSRF
 * prevention, and the refusals that must come before any work is done. Field suggestions
 * ("did you mean …") go with introspection: off together.
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
    // A GET or a form POST from another site (a "simple" request) must carry this header.
    useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf', 'apollo-require-preflight'] }),
    useAcceptableAnswers(),
    useUncompressedBodies(),
    useJsonParameters(),
    useOperationRules(),
    useOperationChecks(),
    useQuietErrors({ hideSuggestions: !introspection }),
  ];
}
