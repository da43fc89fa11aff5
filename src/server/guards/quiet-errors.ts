// Answers that must not echo input: no parse error's original text, no suggestion of the schema's names.
import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';

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
