// Answers that must not echo input: no parse error's original text, no suggestion of the schema's
// names, no value a field could not hold.
import { GraphQLError, type ExecutionResult } from 'graphql';
import { maskError as yogaMaskError, type Plugin } from 'graphql-yoga';
import type { ErrorCode } from '../../error-codes.js';
import { pathText } from '../../upstream/shapes.js';

/** "Did you mean …?" in any message: field names, enum values, arguments, types. */
const SUGGESTION = / ?Did you mean [^?]*\?/g;

/**
 * Quietens an answer's errors in place: a body that failed to parse is not echoed back in
 * `originalError` (it may hold a token); with `hideSuggestions`, no message suggests a name
 * of the schema ("Did you mean …?"). HTTP answers pass here through useQuietErrors, and a
 * WebSocket's through its own hooks (websocket.ts).
 */
export function quietErrors(errors: ExecutionResult['errors'], hideSuggestions: boolean): void {
  for (const error of errors ?? []) {
    const original = error.extensions?.originalError as { name?: string } | undefined;
    // yoga reads the key's presence to pick the status: keep it, drop what it quotes.
    if (original) (error.extensions as Record<string, unknown>).originalError = { name: original.name };
    // The schema stays private with introspection off: no suggestions of its names.
    if (hideSuggestions && error.message.includes('Did you mean'))
      (error as { message: string }).message = error.message.replace(SUGGESTION, '');
  }
}

/** Every HTTP answer's errors quietened (quietErrors). */
export function useQuietErrors({ hideSuggestions }: { hideSuggestions: boolean }): Plugin {
  return {
    onResultProcess({ result }) {
      for (const single of (Array.isArray(result) ? result : [result]) as ExecutionResult[]) quietErrors(single?.errors, hideSuggestions);
    },
  };
}

// A leaf's serializer refusing a value: graphql-js's scalars and enums ("Int cannot represent non
// 32-bit signed integer value: 3000000000", `Enum "X" cannot represent value: …`), and
// graphql-jit, which reports a serializer's message as its own, or when one returned nothing
// (`Expected a value of type "Int" but received: …`).
const UNREPRESENTABLE = /^(?:Enum "\w+"|[A-Z]\w*) cannot represent |^Expected a value of type "\w+" but received/;

/**
 * yoga's maskError, but for a value the graph cannot represent (an integer past a GraphQL Int,
 * say): that field's UPSTREAM_ERROR, naming the field and never the value, whichever executor
 * ran (graphql-jit's error would quote the value with no code, the standard one's be masked as a
 * bug). The shapes hold every upstream value to what its field can represent (upstream/models.ts),
 * so this is the backstop for a value that came another way.
 */
export function maskError(error: unknown, message: string, isDev?: boolean): Error {
  if (error instanceof GraphQLError && error.path && error.extensions?.code === undefined) {
    const reason = error.originalError ?? error;
    if (UNREPRESENTABLE.test(reason.message)) {
      const code: ErrorCode = 'UPSTREAM_ERROR';
      return new GraphQLError(`The field ${pathText(error.path)} cannot hold the value the upstream sent.`, {
        nodes: error.nodes,
        path: error.path,
        extensions: { code },
      });
    }
  }
  return yogaMaskError(error, message, isDev);
}
