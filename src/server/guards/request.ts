// Guards on the HTTP request itself, before any GraphQL work: what it accepts, how its body and parameters come.
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { requestErrorExtensions, REQUEST_ERRORS, type RequestErrorCode } from '../../error-codes.js';
import { LIMITS } from '../limits.js';

// What a GraphQL answer can be sent as; text/html is GraphiQL's page.
const ACCEPTABLE = /(^|,)\s*(\*\/\*|application\/\*|application\/json|application\/graphql-response\+json|multipart\/mixed|text\/event-stream|text\/html)\s*(;|,|$)/i;

/** An Accept nothing can satisfy is 406 before the operation runs (not after its upstream calls). */
export function useAcceptableAnswers(): Plugin {
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      const accept = request.headers.get('accept');
      if (accept && !ACCEPTABLE.test(accept)) endResponse(new fetchAPI.Response(null, { status: 406 }));
    },
  };
}

/** A compressed request body is 415: no client needs one, and inflating it is a bomb's door. */
export function useUncompressedBodies(): Plugin {
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      const encoding = request.headers.get('content-encoding');
      if (!encoding || encoding.trim().toLowerCase() === 'identity') return;
      endResponse(
        new fetchAPI.Response(
          JSON.stringify({ errors: [{ message: 'Request bodies are not accepted compressed: send them uncompressed.', extensions: { code: 'UNSUPPORTED_CONTENT_ENCODING' satisfies RequestErrorCode } }] }),
          { status: REQUEST_ERRORS.UNSUPPORTED_CONTENT_ENCODING.status, headers: { 'content-type': 'application/json', connection: 'close' } },
        ),
      );
    },
  };
}

/** Whether a JSON value nests deeper than `limit` objects and lists (measured without recursion). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [next, depth] = pending.pop()!;
    if (next === null || typeof next !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Object.values(next)) pending.push([child, depth + 1]);
  }
  return false;
}

/** Throws BAD_USER_INPUT when a request's `variables` or `extensions` nest too deep (an HTTP request's or a WebSocket message's). */
export function checkNesting(params: unknown): void {
  // (An array is a batch, which yoga refuses next; its items may be anything.)
  for (const single of Array.isArray(params) ? params : [params]) {
    if (single === null || typeof single !== 'object') continue;
    const { variables, extensions } = single as { variables?: unknown; extensions?: unknown };
    if (nestsDeeperThan(variables, LIMITS.maxVariableDepth) || nestsDeeperThan(extensions, LIMITS.maxVariableDepth)) {
      throw createGraphQLError(`"variables" and "extensions" may nest ${LIMITS.maxVariableDepth} levels at most.`, {
        extensions: requestErrorExtensions('BAD_USER_INPUT'),
      });
    }
  }
}

/**
 * `variables`/`extensions` that are not JSON (GET, form POST) are 400 BAD_REQUEST, not a
 * masked 500; nested past the limit, 400 BAD_USER_INPUT.
 */
export function useJsonParameters(): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) return;
      setRequestParser(async (request) => {
        let params: Awaited<ReturnType<typeof requestParser>>;
        try {
          params = await requestParser(request);
        } catch (error) {
          if (!(error instanceof SyntaxError)) throw error;
          throw createGraphQLError('The request parameters are not valid JSON: check "variables" and "extensions".', {
            extensions: requestErrorExtensions('BAD_REQUEST'),
          });
        }
        checkNesting(params);
        return params;
      });
    },
  };
}
