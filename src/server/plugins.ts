import type { IncomingMessage } from 'node:http';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import {
  BREAK,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  Kind,
  visit,
  type DirectiveNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type OperationDefinitionNode,
  type SelectionNode,
  type ValidationContext,
} from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { costRefusal } from './cost.js';
import { LIMITS } from './limits.js';
import { setAnswerHeaders } from './headers.js';
import { findRequestInfo, requestInfo, startRequestInfo, type RequestPolicy } from './request-info.js';

// A limit reports a validation error (400 GRAPHQL_VALIDATION_FAILED) instead of throwing,
// which would answer 200 with no code.
const asValidationError = {
  propagateOnRejection: false,
  onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(error)],
};

/**
 * Query limits (graphql-armor; their messages state the limit, as SECURITY.md does) and CSRF
 * prevention. Field suggestions ("did you mean …") go with introspection: off together.
 */
export function useHardening({ introspection }: { introspection: boolean }): Plugin[] {
  return [
    EnvelopArmorPlugin({
      maxDepth: { n: LIMITS.maxDepth, flattenFragments: true, ...asValidationError },
      maxAliases: { n: LIMITS.maxAliases, ...asValidationError },
      maxTokens: { n: LIMITS.maxTokens },
      maxDirectives: { n: LIMITS.maxDirectives, ...asValidationError },
      // The cost is counted before execution instead (cost.ts), where the variables are known:
      // armor's rule sees literals only, so `first: 16` weighed 16 times what `first: $n` did.
      costLimit: { enabled: false },
      // Hidden by useRequestGuards instead, which also covers enum values and variables.
      blockFieldSuggestion: { enabled: false },
    }) as Plugin,
    // A GET or a form POST from another site (a "simple" request) must carry this header.
    useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf', 'apollo-require-preflight'] }),
    useRequestGuards({ hideSuggestions: !introspection }),
  ];
}

// The mutations that send credentials upstream: one per request, so a document cannot turn
// into twenty login attempts (aliases) or spend a refresh token on a result it throws away.
const CREDENTIAL_FIELDS = new Set(['login', 'refreshTokens']);

/** The operation's root fields with these names, aliases and fragments included. */
function countRootFields(context: ValidationContext, selections: readonly SelectionNode[], names: ReadonlySet<string>, seen = new Set<string>()): number {
  let count = 0;
  for (const selection of selections) {
    if (selection.kind === Kind.FIELD) count += names.has(selection.name.value) ? 1 : 0;
    else if (selection.kind === Kind.INLINE_FRAGMENT) count += countRootFields(context, selection.selectionSet.selections, names, seen);
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = context.getFragment(selection.name.value);
      if (fragment) count += countRootFields(context, fragment.selectionSet.selections, names, seen);
    }
  }
  return count;
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

/** A @stream's `initialCount`, from its literal or (given them) the variables; undefined for any other directive. */
function streamCount(node: DirectiveNode, variables?: Readonly<Record<string, unknown>> | null): unknown {
  if (node.name.value !== 'stream') return undefined;
  const value = node.arguments?.find((argument) => argument.name.value === 'initialCount')?.value;
  if (value?.kind === Kind.INT) return Number(value.value);
  return value?.kind === Kind.VARIABLE ? variables?.[value.name.value] : undefined;
}

/** Whether a @stream of the document asks for a negative initialCount (graphql-tools would throw a bare Error). */
function hasNegativeStreamCount(document: DocumentNode, variables: Readonly<Record<string, unknown>> | null | undefined): boolean {
  let negative = false;
  visit(document, {
    Directive(node) {
      const count = streamCount(node, variables);
      if (typeof count !== 'number' || count >= 0) return;
      negative = true;
      return BREAK;
    },
  });
  return negative;
}

const NEGATIVE_STREAM_COUNT = '@stream(initialCount:) must be 0 or more: it is how many items come in the first payload.';

/** "Did you mean …?" in any message: field names, enum values, arguments, types. */
const SUGGESTION = / ?Did you mean [^?]*\?/g;

// Documents with incremental delivery, by parsed document (yoga caches those).
const incremental = new WeakMap<DocumentNode, boolean>();

/** Whether the document asks for incremental delivery (@defer or @stream anywhere in it). */
export function usesDeferOrStream(document: DocumentNode): boolean {
  let found = incremental.get(document);
  if (found === undefined) {
    found = false;
    visit(document, {
      Directive(node) {
        if (node.name.value !== 'defer' && node.name.value !== 'stream') return;
        found = true;
        return BREAK;
      },
    });
    incremental.set(document, found);
  }
  return found;
}

// What a GraphQL answer can be sent as; text/html is GraphiQL's page.
const ACCEPTABLE = /(^|,)\s*(\*\/\*|application\/\*|application\/json|application\/graphql-response\+json|multipart\/mixed|text\/event-stream|text\/html)\s*(;|,|$)/i;
// What a stream of results (a subscription, @defer or @stream) can be sent as.
const STREAMABLE = /(^|,)\s*(\*\/\*|multipart\/(mixed|\*)|text\/(event-stream|\*))\s*(;|,|$)/i;

/** Variables that do not fit the operation: 400 BAD_USER_INPUT, whichever executor runs. */
function variableRefusal({ document, variableValues, schema }: ExecutionArgs, operation: OperationDefinitionNode): ExecutionResult | undefined {
  if (!operation.variableDefinitions?.length) return undefined;
  const { errors } = getVariableValues(schema, operation.variableDefinitions, variableValues ?? {}, { maxErrors: 10 });
  if (!errors) {
    // A literal is refused by validation; a count from a variable only now.
    if (!hasNegativeStreamCount(document, variableValues)) return undefined;
    return { errors: [createGraphQLError(NEGATIVE_STREAM_COUNT, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } })] };
  }
  return {
    errors: errors.map((error) => new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } })),
  };
}

/**
 * Why an operation must not run, found before it runs: an answer the client cannot take
 * (406), variables that do not fit (400 BAD_USER_INPUT, whichever executor runs), or a
 * cost past the limit (400 GRAPHQL_VALIDATION_FAILED, the code armor's cost limit gave).
 */
function refusal(args: ExecutionArgs): ExecutionResult | undefined {
  const { document, operationName, variableValues, schema, contextValue } = args;
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  const accept = (contextValue as { request?: Request }).request?.headers.get('accept');
  if (accept && !STREAMABLE.test(accept) && (operation.operation === 'subscription' || usesDeferOrStream(document))) {
    return {
      errors: [
        createGraphQLError('This operation answers with a stream: accept text/event-stream or multipart/mixed.', {
          extensions: { code: 'NOT_ACCEPTABLE', http: { status: 406 } },
        }),
      ],
    };
  }
  const badInput = variableRefusal(args, operation);
  if (badInput) return badInput;
  // Counted here rather than in validation (which yoga caches per document): with the
  // variables known, `first: $n` weighs what the same literal does.
  const tooCostly = costRefusal(schema, document, operation, variableValues);
  if (!tooCostly) return undefined;
  return { errors: [createGraphQLError(tooCostly, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } })] };
}

/**
 * Refusals that must come before any work is done, and answers that must not echo input:
 * - an Accept nothing can satisfy is 406 before the operation runs (not after its upstream calls);
 * - a compressed request body is 415: no client needs one, and inflating it is a bomb's door;
 * - `variables`/`extensions` that are not JSON (GET, form POST) are 400 BAD_REQUEST, not a masked 500;
 * - a subscription, or a document with @defer or @stream, sent by a client that accepts no
 *   stream is 406 before it runs (not after its upstream calls);
 * - more than one credential mutation (login, refreshTokens) in an operation is a validation error;
 * - with introspection off, no message suggests a name of the schema ("Did you mean …?");
 * - variables are coerced before execution, so a bad one is 400 BAD_USER_INPUT whichever
 *   executor runs (graphql-jit reports them as an ordinary 200 result otherwise);
 * - a body that failed to parse is not echoed back in `originalError` (it may hold a token).
 */
function useRequestGuards({ hideSuggestions }: { hideSuggestions: boolean }): Plugin {
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      const accept = request.headers.get('accept');
      if (accept && !ACCEPTABLE.test(accept)) return endResponse(new fetchAPI.Response(null, { status: 406 }));
      const encoding = request.headers.get('content-encoding');
      if (encoding && encoding.trim().toLowerCase() !== 'identity') {
        return endResponse(
          new fetchAPI.Response(
            JSON.stringify({ errors: [{ message: 'Request bodies are not accepted compressed: send them uncompressed.', extensions: { code: 'UNSUPPORTED_CONTENT_ENCODING' } }] }),
            { status: 415, headers: { 'content-type': 'application/json', connection: 'close' } },
          ),
        );
      }
    },
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) return;
      setRequestParser(async (request) => {
        let params: Awaited<ReturnType<typeof requestParser>>;
        try {
          params = await requestParser(request);
        } catch (error) {
          if (!(error instanceof SyntaxError)) throw error;
          throw createGraphQLError('The request parameters are not valid JSON: check "variables" and "extensions".', {
            extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
          });
        }
        // (An array is a batch, which yoga refuses next; its items may be anything.)
        for (const single of Array.isArray(params) ? params : [params]) {
          if (single === null || typeof single !== 'object') continue;
          const { variables, extensions } = single as { variables?: unknown; extensions?: unknown };
          if (nestsDeeperThan(variables, LIMITS.maxVariableDepth) || nestsDeeperThan(extensions, LIMITS.maxVariableDepth)) {
            throw createGraphQLError(`"variables" and "extensions" may nest ${LIMITS.maxVariableDepth} levels at most.`, {
              extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
            });
          }
        }
        return params;
      });
    },
    onValidate({ addValidationRule }) {
      addValidationRule((context: ValidationContext) => ({
        Directive(node: DirectiveNode) {
          const count = streamCount(node);
          if (typeof count === 'number' && count < 0) context.reportError(new GraphQLError(NEGATIVE_STREAM_COUNT, { nodes: [node], extensions: { code: 'BAD_USER_INPUT' } }));
        },
        OperationDefinition(node: OperationDefinitionNode) {
          const credentials = countRootFields(context, node.selectionSet.selections, CREDENTIAL_FIELDS);
          if (credentials > 1) {
            context.reportError(
              new GraphQLError(`One login or refreshTokens per request: this operation has ${credentials}.`, {
                nodes: [node],
                extensions: { code: 'CREDENTIAL_OPERATIONS_LIMIT' },
              }),
            );
          }
        },
      }));
    },
    onExecute({ args, setResultAndStopExecution }) {
      const refused = refusal(args);
      if (refused) setResultAndStopExecution(refused);
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      const refused = refusal(args);
      if (refused) setResultAndStopExecution(refused);
    },
    onResultProcess({ result }) {
      for (const single of (Array.isArray(result) ? result : [result]) as ExecutionResult[]) {
        for (const error of single?.errors ?? []) {
          const original = error.extensions?.originalError as { name?: string } | undefined;
          // yoga reads the key's presence to pick the status: keep it, drop what it quotes.
          if (original) (error.extensions as Record<string, unknown>).originalError = { name: original.name };
          // The schema stays private with introspection off: no suggestions of its names.
          if (hideSuggestions && error.message.includes('Did you mean')) (error as { message: string }).message = error.message.replace(SUGGESTION, '');
        }
      }
    },
  };
}

export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';

export interface LifecycleOptions {
  logger?: Logger;
  policy: RequestPolicy;
  /** Paths probed over and over (health, readiness, metrics): logged at debug, not info. */
  quietPaths: readonly string[];
  /** Fields that tie the request's log line to its trace. */
  logFields?: (request: Request) => Record<string, string> | undefined;
  /** False once a stop has begun: /readyz then tells load balancers to go elsewhere. */
  isReady: () => boolean;
  /** What /readyz reports besides (the state of Redis): informative, it does not change the status. */
  readinessDetails?: () => Record<string, string>;
}

// Built with the server adapter's own Response class: a native one breaks its stream handling.
const json = (ResponseClass: typeof Response, status: number, body: unknown) =>
  new ResponseClass(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });

function errorCodes(result: unknown): string[] {
  const results = (Array.isArray(result) ? result : [result]) as ExecutionResult[];
  return results.flatMap((r) => (r?.errors ?? []).map((e) => String(e.extensions?.code ?? 'UNKNOWN')));
}

/** The client socket's address, from the Node request under the adapter. */
const socketAddress = (serverContext: unknown) => (serverContext as { req?: IncomingMessage } | undefined)?.req?.socket?.remoteAddress;

/**
 * Health endpoints, the request id (taken or made, returned, forwarded upstream), the
 * response headers of every API answer (headers.ts), and one log line per request.
 */
export function useRequestLifecycle({ logger, policy, isReady, readinessDetails, quietPaths, logFields }: LifecycleOptions): Plugin {
  const quiet = new Set(quietPaths);
  return {
    onRequest({ request, serverContext, url, endResponse, fetchAPI }) {
      startRequestInfo(request, policy, socketAddress(serverContext));
      if (url.pathname === HEALTH_PATH) return endResponse(json(fetchAPI.Response, 200, { status: 'ok' }));
      if (url.pathname === READY_PATH) {
        const ready = isReady();
        return endResponse(json(fetchAPI.Response, ready ? 200 : 503, { status: ready ? 'ready' : 'shutting down', ...readinessDetails?.() }));
      }
    },
    onExecute({ args }) {
      const info = requestInfo(args.contextValue.request);
      info.operationName = getOperationAST(args.document, args.operationName)?.name?.value ?? null;
    },
    onResultProcess({ request, result }) {
      for (const code of errorCodes(result)) requestInfo(request).errorCodes.add(code);
    },
    onResponse({ request, serverContext, response }) {
      // yoga's own plugins run first and may answer before ours saw the request (a CORS preflight).
      const info = findRequestInfo(request) ?? startRequestInfo(request, policy, socketAddress(serverContext));
      // An error thrown here would reach the server adapter's fallback, which answers with
      // the error's stack: headers are best effort, the log line is not.
      try {
        setAnswerHeaders(response, { requestId: info.id, draining: !isReady() });
      } catch (error) {
        logger?.warn({ requestId: info.id, err: error instanceof Error ? error.message : String(error) }, 'response headers not set');
      }
      if (!logger) return;
      const level = quiet.has(new URL(request.url, 'http://gateway').pathname) ? 'debug' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          requestId: info.id,
          ...logFields?.(request),
          operation: info.operationName,
          status: response.status,
          ms: Date.now() - info.startedAt,
          upstreamCalls: info.budget.calls,
          ...(info.budget.refused > 0 ? { upstreamCallsRefused: info.budget.refused } : {}),
          errorCodes: [...info.errorCodes],
        },
        'request',
      );
    },
  };
}
