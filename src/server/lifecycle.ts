// A request's life in the gateway: its scope and record made on arrival, its response's headers, its log line.
import type { ExecutionResult } from 'graphql';
import { getOperationAST, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { setResponseHeaders } from './headers.js';
import { requestSummary } from './request-record.js';
import { requestOf, type ScopeSettings, type ServerContext } from './request-scope.js';

export interface LifecycleOptions {
  logger?: Logger;
  policy: ScopeSettings;
  /** Paths probed over and over (health, readiness, metrics): logged at debug, not info. */
  quietPaths: readonly string[];
  /** Whether a stop has begun: every response then closes its connection. */
  isDraining: () => boolean;
}

function errorCodes(result: unknown): string[] {
  const results = (Array.isArray(result) ? result : [result]) as ExecutionResult[];
  return results.flatMap((r) => (r?.errors ?? []).map((e) => String(e.extensions?.code ?? 'UNKNOWN')));
}

/** The operation begins to run: its name is known (for the log line and the metrics). */
function began({
  contextValue,
  document,
  operationName,
}: {
  contextValue: unknown;
  document: DocumentNode;
  operationName?: string | null;
}) {
  const { record } = contextValue as ServerContext;
  if (!record) return;
  record.began = true;
  record.operationName = getOperationAST(document, operationName)?.name?.value ?? null;
}

/**
 * The first plugin: makes the request's scope and record when it arrives (the request id
 * taken or made, the caller read once), returns the id and the answer headers of every API
 * answer (headers.ts), and writes one log line per request.
 */
export function useRequestLifecycle({
  logger,
  policy,
  quietPaths,
  isDraining,
}: LifecycleOptions): Plugin<Record<string, unknown>, ServerContext> {
  const quiet = new Set(quietPaths);
  return {
    onRequest({ request, serverContext }) {
      requestOf(serverContext, request, policy);
    },
    onExecute: ({ args }) => began(args),
    onSubscribe: ({ args }) => began(args),
    onResultProcess({ request, result, serverContext }) {
      const { record } = requestOf(serverContext, request, policy);
      for (const code of errorCodes(result)) record.answeredError(code);
    },
    onResponse({ request, serverContext, response }) {
      const { scope, record } = requestOf(serverContext, request, policy);
      // An error thrown here would reach the server adapter's fallback, which answers with
      // the error's stack: headers are best effort, the log line is not.
      try {
        setResponseHeaders(response, { requestId: scope.id, draining: isDraining() });
      } catch (error) {
        logger?.warn({ requestId: scope.id, err: error instanceof Error ? error.message : String(error) }, 'response headers not set');
      }
      const level = quiet.has(new URL(request.url, 'http://gateway').pathname) ? 'debug' : 'info';
      if (!logger?.isLevelEnabled(level)) return;
      logger[level]({ ...requestSummary(scope, record), status: response.status }, 'request');
    },
  };
}
