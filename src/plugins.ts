import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { getOperationAST, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { LIMITS } from './limits.js';
import { requestInfo } from './request-info.js';

/**
 * Query limits (graphql-armor) and CSRF prevention. Limits are not exposed in errors, and
 * field suggestions ("did you mean …") go with introspection: off together.
 */
export function useHardening({ introspection }: { introspection: boolean }): Plugin[] {
  return [
    EnvelopArmorPlugin({
      maxDepth: { n: LIMITS.maxDepth, flattenFragments: true },
      maxAliases: { n: LIMITS.maxAliases },
      maxTokens: { n: LIMITS.maxTokens },
      maxDirectives: { n: LIMITS.maxDirectives },
      costLimit: { maxCost: LIMITS.maxCost },
      blockFieldSuggestion: { enabled: !introspection },
    }) as Plugin,
    // A GET or a form POST from another site (a "simple" request) must carry this header.
    useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf', 'apollo-require-preflight'] }),
  ];
}

export interface LifecycleOptions {
  logger?: Logger;
  deadlineMs: number;
  /** False once a stop has begun: /readyz then tells load balancers to go elsewhere. */
  isReady: () => boolean;
}

// Built with the server's own Response class: later plugins (compression) expect its streams.
const json = (ResponseClass: typeof Response, status: number, body: unknown) =>
  new ResponseClass(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });

function errorCodes(result: unknown): string[] {
  const results = (Array.isArray(result) ? result : [result]) as ExecutionResult[];
  return results.flatMap((r) => (r?.errors ?? []).map((e) => String(e.extensions?.code ?? 'UNKNOWN')));
}

/**
 * Health endpoints, the request id (taken or made, returned, forwarded upstream), the
 * response headers that keep shared caches out, and one log line per request.
 */
export function useRequestLifecycle({ logger, deadlineMs, isReady }: LifecycleOptions): Plugin {
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname === '/healthz') return endResponse(json(fetchAPI.Response, 200, { status: 'ok' }));
      if (url.pathname === '/readyz') {
        return endResponse(json(fetchAPI.Response, isReady() ? 200 : 503, { status: isReady() ? 'ready' : 'shutting down' }));
      }
      requestInfo(request, deadlineMs);
    },
    onExecute({ args }) {
      const info = requestInfo(args.contextValue.request, deadlineMs);
      info.operationName = getOperationAST(args.document, args.operationName)?.name?.value ?? null;
    },
    onResultProcess({ request, result }) {
      for (const code of errorCodes(result)) requestInfo(request, deadlineMs).errorCodes.add(code);
    },
    onResponse({ request, response }) {
      const info = requestInfo(request, deadlineMs);
      // An error thrown here would reach the server adapter's fallback, which answers with
      // the error's stack: headers are best effort, the log line is not.
      try {
        response.headers.set('x-request-id', info.id);
        // Answers depend on the caller's token: no shared cache may keep or reuse them.
        response.headers.set('cache-control', 'private, no-store');
        const vary = response.headers.get('vary');
        if (!vary?.toLowerCase().includes('authorization')) response.headers.set('vary', vary ? `${vary}, Authorization` : 'Authorization');
      } catch (error) {
        logger?.warn({ requestId: info.id, err: error instanceof Error ? error.message : String(error) }, 'response headers not set');
      }
      logger?.info(
        {
          requestId: info.id,
          operation: info.operationName,
          status: response.status,
          ms: Date.now() - info.startedAt,
          upstreamCalls: info.upstreamCalls,
          errorCodes: [...info.errorCodes],
        },
        'request',
      );
    },
  };
}
