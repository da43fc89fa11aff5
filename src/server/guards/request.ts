// Guards on the HTTP request itself, before any GraphQL work: what it accepts, how its body and parameters come.
import { isIP } from 'node:net';
import { createGraphQLError, type FetchAPI, type Plugin } from 'graphql-yoga';
import { requestErrorExtensions, REQUEST_ERRORS, type RequestErrorCode } from '../../error-codes.js';
import { LIMITS } from '../limits.js';

// What a GraphQL answer can be sent as; text/html is GraphiQL's page.
const ACCEPTABLE =
  /(^|,)\s*(\*\/\*|application\/\*|application\/json|application\/graphql-response\+json|multipart\/mixed|text\/event-stream|text\/html)\s*(;|,|$)/i;

/** An Accept nothing can satisfy is 406 before the operation runs (not after its upstream calls). */
export function useAcceptHeader(): Plugin {
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      const accept = request.headers.get('accept');
      if (accept && !ACCEPTABLE.test(accept)) endResponse(new fetchAPI.Response(null, { status: 406 }));
    },
  };
}

/**
 * A media type as it means (RFC 9110: the type and subtype case-insensitive, spaces around the
 * parameters optional): `APPLICATION/JSON ;charset=utf-8` is `application/json; charset=utf-8`.
 */
export function normalMediaType(value: string): string {
  const [type = '', ...parameters] = value.split(';').map((part) => part.trim());
  return [type.toLowerCase(), ...parameters.filter(Boolean)].join('; ');
}

/**
 * The request's Content-Type in its normal form before anything reads it: yoga's parsers and
 * the CSRF check compare it as written (an uppercase JSON type would be refused 415, and a
 * leading space would hide a simple type from the CSRF check).
 */
export function useMediaTypes(): Plugin {
  return {
    onRequest({ request }) {
      const type = request.headers.get('content-type');
      if (type === null) return;
      const normal = normalMediaType(type);
      if (normal !== type) request.headers.set('content-type', normal);
    },
  };
}

/** ALLOWED_HOSTS: the host names the gateway answers to, or any. */
export type AllowedHosts = readonly string[] | 'any';

/**
 * Whether a request's Host may be answered: any with 'any'; else an IP address (a DNS-rebinding
 * page's requests carry its own name, never an address) or one of the names, port aside.
 */
export function hostAllowed(allowed: AllowedHosts): (host: string | null | undefined) => boolean {
  if (allowed === 'any') return () => true;
  const names = new Set(allowed.map((name) => name.toLowerCase()));
  return (host) => {
    if (!host) return true;
    const name = /^\[([^\]]*)\]/.exec(host)?.[1] ?? host.replace(/:\d*$/, '');
    return isIP(name) !== 0 || names.has(name.toLowerCase());
  };
}

/** A Host that is none of ALLOWED_HOSTS: 421 HOST_NOT_ALLOWED before anything else (GraphiQL, the tracker and the probes too). */
export function useAllowedHosts(allowed: AllowedHosts): Plugin {
  const allows = hostAllowed(allowed);
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      if (allows(request.headers.get('host') ?? new URL(request.url).host)) return;
      const body = {
        errors: [
          {
            message: 'This server does not answer for that host name.',
            extensions: { code: 'HOST_NOT_ALLOWED' satisfies RequestErrorCode },
          },
        ],
      };
      endResponse(
        new fetchAPI.Response(JSON.stringify(body), {
          status: REQUEST_ERRORS.HOST_NOT_ALLOWED.status,
          headers: { 'content-type': 'application/json' },
        }),
      );
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
          JSON.stringify({
            errors: [
              {
                message: 'Request bodies are not accepted compressed: send them uncompressed.',
                extensions: { code: 'UNSUPPORTED_CONTENT_ENCODING' satisfies RequestErrorCode },
              },
            ],
          }),
          {
            status: REQUEST_ERRORS.UNSUPPORTED_CONTENT_ENCODING.status,
            headers: { 'content-type': 'application/json', connection: 'close' },
          },
        ),
      );
    },
  };
}

const tooLarge = () => createGraphQLError('Request body too large', { extensions: requestErrorExtensions('REQUEST_ENTITY_TOO_LARGE') });

/** The body with a byte count on it: past `limit` it errors with 413 instead of reading on. */
function countedBody(request: Request, limit: number, fetchAPI: FetchAPI): Request {
  let bytes = 0;
  // A native stream pipes through a native transform, whatwg-node's through its own.
  const Transform = request.body instanceof ReadableStream ? TransformStream : fetchAPI.TransformStream;
  const counted = request.body!.pipeThrough(
    new Transform<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        if (bytes > limit) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  const init: RequestInit & { duplex: 'half' } = {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    body: counted,
    duplex: 'half',
  };
  return new fetchAPI.Request(request.url, init);
}

/**
 * A body over LIMITS.maxRequestBodyBytes is 413 REQUEST_ENTITY_TOO_LARGE (yoga's own
 * `maxRequestBodySize` is off). A body with a Content-Length is refused on that alone and
 * otherwise read as it is: Node's parser hands on exactly that many bytes, never more, so
 * counting them again (yoga wraps every body in a counting stream, with an abort signal
 * and a new Request) is work for nothing on the common path. Only a body without one
 * (chunked) is counted as it is read.
 */
export function useBodyLimit(limit: number = LIMITS.maxRequestBodyBytes): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      const length = request.headers.get('content-length');
      if (length !== null) {
        // One non-negative integer: anything else (a list of them, a sign) smells of smuggling.
        if (!/^\d+$/.test(length))
          throw createGraphQLError('Content-Length header is invalid.', { extensions: requestErrorExtensions('BAD_REQUEST') });
        if (Number(length) > limit) throw tooLarge();
        return;
      }
      if (!requestParser || !request.body) return;
      setRequestParser((unread) => requestParser(countedBody(unread, limit, fetchAPI)));
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
