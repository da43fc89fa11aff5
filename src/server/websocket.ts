// GraphQL over WebSocket (graphql-ws) on /graphql beside HTTP and SSE: the same plugins, scope and limits for each operation.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, type ExecutionArgs } from 'graphql';
import type { Context, SubscribePayload } from 'graphql-ws';
import { useServer, type Extra } from 'graphql-ws/use/ws';
import { createGraphQLError, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import type { GraphQLContext } from '../graph/context.js';
import { REQUEST_ERRORS } from '../error-codes.js';
import { quietErrors } from './guards/quiet-errors.js';
import { checkNesting } from './guards/request.js';
import { rawResponse } from './headers.js';
import { LIMITS } from './limits.js';
import { requestSummary } from './request-record.js';
import { startSocketOperation, type ScopeSettings, type ServerContext, type StartedRequest } from './request-scope.js';
import { trustedParams, type OperationParams } from './trusted-documents.js';

export interface WebSocketOptions {
  yoga: YogaServerInstance<ServerContext, GraphQLContext>;
  policy: ScopeSettings;
  path: string;
  /** Whether a browser page from this origin may connect (CORS_ORIGINS, as for HTTP). */
  originAllowed: (origin: string) => boolean;
  /** Whether the upgrade's Host may be answered (ALLOWED_HOSTS, as for HTTP). */
  hostAllowed: (host: string | undefined) => boolean;
  trustedDocuments: 'off' | 'allow' | 'only';
  /** No message suggests a name of the schema (introspection off). */
  hideSuggestions: boolean;
  /** How long a connection may take to send connection_init (HEADERS_TIMEOUT_MS: the socket's "headers"). */
  initTimeoutMs: number;
  /** How long a connection may run no operation before it is closed (WEBSOCKET_IDLE_TIMEOUT_MS); pings do not count. */
  idleTimeoutMs: number;
  /** False once a stop has begun: upgrades are refused. */
  isReady: () => boolean;
  logger?: Logger;
}

export interface WebSocketEndpoint {
  /** The HTTP server's `upgrade` listener: refuses what may not connect, hands the rest to graphql-ws. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * Closes every socket with 1001 (going away) once its operations have ended (the orders hub
   * completes the subscriptions when it closes); the ones still busy after `graceMs` are
   * closed all the same. Resolves once every socket is gone.
   */
  drain(graceMs: number): Promise<void>;
}

/** One operation on a socket: its scope and record, and how to end it. */
interface Operation extends StartedRequest {
  controller: AbortController;
}

type ConnectionParams = Record<string, unknown> | undefined;
type SocketContext = Context<ConnectionParams, Extra>;
// An operation's execute and subscribe, with yoga's plugins around them.
type Executors = Pick<ReturnType<WebSocketOptions['yoga']['getEnveloped']>, 'execute' | 'subscribe'>;

// A socket closed by the server is given this long to answer the close before it is cut.
const CLOSE_WAIT_MS = 1000;
const NORMAL = 1000;
const GOING_AWAY = 1001;

/** A browser page's Origin matches the address it connected to: the page is the gateway's own (GraphiQL). */
function sameOrigin(origin: string, host: string | undefined): boolean {
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** The connection's bearer, as connection_init sent it. */
function authorization(params: Readonly<Record<string, unknown>> | undefined): string | null {
  const value = params?.authorization ?? params?.Authorization;
  return typeof value === 'string' ? value : null;
}

/** The error codes of a result, for the operation's log line. */
const codesOf = (errors: readonly { extensions?: Record<string, unknown> }[] | undefined) =>
  (errors ?? []).map((error) => String(error.extensions?.code ?? 'UNKNOWN'));

/**
 * GraphQL over WebSocket (the graphql-transport-ws protocol, as graphql-ws and Apollo's
 * GraphQLWsLink speak it). Each operation runs through yoga's envelop with a scope and a
 * record of its own made from the connection (startSocketOperation), so the guards, budgets, trusted
 * documents and live limits are the HTTP requests' own; ws caps a message at the request
 * body limit (1009 past it) and graphql-ws closes a malformed one (4400) or a connection
 * without connection_init (4408).
 */
export function createWebSocketEndpoint(options: WebSocketOptions): WebSocketEndpoint {
  const { logger } = options;
  const sockets = new Map<WebSocket, Map<string, Operation>>();
  const server = new WebSocketServer({ noServer: true, maxPayload: LIMITS.maxRequestBodyBytes, perMessageDeflate: false });
  let draining = false;
  const watchIdle = idleCloser(sockets, options.idleTimeoutMs);
  server.on('connection', (socket: WebSocket) => {
    const operations = new Map<string, Operation>();
    sockets.set(socket, operations);
    socket.once('close', () => {
      sockets.delete(socket);
      watchIdle(socket);
      for (const { controller } of operations.values()) controller.abort();
    });
    watchIdle(socket);
    if (draining) closeWhenIdle(socket);
  });

  /** Closes the socket once it runs nothing (after the write of its last `complete`). */
  function closeWhenIdle(socket: WebSocket) {
    if ((sockets.get(socket)?.size ?? 0) > 0) return;
    setImmediate(() => closeGoingAway(socket));
  }

  const runOperation = operationRunner(options, sockets, watchIdle);
  useServer<ConnectionParams>(
    {
      connectionInitWaitTimeout: options.initTimeoutMs,
      onSubscribe: runOperation,
      // The operation's enveloped execute and subscribe ride in its root value (yoga's
      // documented graphql-ws integration): a subscription's events replace it with theirs.
      execute: (args) => (args.rootValue as Executors).execute(args),
      subscribe: (args) => (args.rootValue as Executors).subscribe(args),
      onNext: (ctx, id, _payload, _args, result) => {
        const record = sockets.get(ctx.extra.socket)?.get(id)?.record;
        for (const code of codesOf(result.errors)) record?.answeredError(code);
        quietErrors(result.errors, options.hideSuggestions);
      },
      onError: (_ctx, _id, _payload, errors) => quietErrors(errors, options.hideSuggestions),
      onComplete: (ctx, id) => {
        const operations = sockets.get(ctx.extra.socket);
        const operation = operations?.get(id);
        if (!operation) return;
        operations!.delete(id);
        operation.controller.abort();
        logOperation(logger, operation);
        if (draining) closeWhenIdle(ctx.extra.socket);
        else watchIdle(ctx.extra.socket);
      },
      // A failure of ours closes the socket (4500) without its message, whatever NODE_ENV says.
      isProd: true,
    },
    server,
  );

  return {
    upgrade(request, socket, head) {
      const refusal = upgradeRefusal(request, options);
      if (refusal) return void socket.end(rawResponse(refusal));
      server.handleUpgrade(request, socket, head, (ws) => {
        server.emit('connection', ws, request);
        // ws reports a client's protocol error (a message past maxPayload, a bad frame) here,
        // after closing the socket with its code (1009, 1002): graphql-ws's own listener would
        // print it to stderr as an internal error and try another close.
        ws.removeAllListeners('error').on('error', (error) =>
          logger?.debug({ err: error.message }, 'websocket closed on a protocol error'),
        );
      });
    },
    async drain(graceMs) {
      draining = true;
      for (const socket of sockets.keys()) closeWhenIdle(socket);
      const force = setTimeout(() => [...sockets.keys()].forEach(closeGoingAway), graceMs);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      while (sockets.size > 0) await new Promise((resolve) => [...sockets.keys()][0]!.once('close', resolve));
      clearTimeout(force);
    },
  };
}

/**
 * A socket running no operation holds a slot for nothing: it is closed after `idleTimeoutMs`,
 * before connection_init as after it; pings do not count, only an operation running does.
 * The returned function is told of each change (an operation started or ended, the socket gone).
 */
function idleCloser(sockets: ReadonlyMap<WebSocket, ReadonlyMap<string, Operation>>, idleTimeoutMs: number) {
  const timers = new Map<WebSocket, NodeJS.Timeout>();
  return (socket: WebSocket) => {
    clearTimeout(timers.get(socket));
    timers.delete(socket);
    const operations = sockets.get(socket);
    if (!operations || operations.size > 0) return;
    timers.set(
      socket,
      setTimeout(
        () => closeSocket(socket, NORMAL, `No operation for ${idleTimeoutMs} ms: closed (connect again when needed).`),
        idleTimeoutMs,
      ).unref(),
    );
  };
}

/** Closes the socket cleanly, and cuts it if the client does not answer the close. */
function closeSocket(socket: WebSocket, code: number, reason: string) {
  if (socket.readyState !== socket.OPEN) return;
  socket.close(code, reason);
  setTimeout(() => socket.terminate(), CLOSE_WAIT_MS).unref();
}

const closeGoingAway = (socket: WebSocket) => closeSocket(socket, GOING_AWAY, 'The gateway is stopping: reconnect.');

/** Why an upgrade is refused (an HTTP status), or null: a host or another path, a stop under way, an origin not allowed. */
function upgradeRefusal(request: IncomingMessage, options: WebSocketOptions): number | null {
  if (!options.hostAllowed(request.headers.host)) return REQUEST_ERRORS.HOST_NOT_ALLOWED.status;
  if (new URL(request.url ?? '/', 'http://gateway').pathname !== options.path) return 404;
  if (!options.isReady()) return 503;
  // Browsers send Origin with every WebSocket and enforce no CORS on it: this check is
  // what CORS is for HTTP. Clients that are not browsers send none.
  const origin = request.headers.origin;
  if (origin && !sameOrigin(origin, request.headers.host) && !options.originAllowed(origin)) return 403;
  return null;
}

/**
 * graphql-ws's onSubscribe: the operation's parameters through the trusted-documents rule
 * and the nesting limit, then parsed and validated with yoga's plugins; its scope and record
 * made from the connection, its signal aborted when it completes or the socket closes. Returns the
 * execution's arguments, or the errors that refuse it.
 */
function operationRunner(options: WebSocketOptions, sockets: Map<WebSocket, Map<string, Operation>>, busy: (socket: WebSocket) => void) {
  const trusted = options.trustedDocuments === 'off' ? (params: OperationParams) => params : trustedParams(options.trustedDocuments);
  return async (ctx: SocketContext, id: string, payload: SubscribePayload): Promise<ExecutionArgs | readonly GraphQLError[]> => {
    const { socket, request } = ctx.extra;
    const operations = sockets.get(socket);
    if (!operations) return [createGraphQLError('The connection is closing.')];
    try {
      const params = trusted({ ...payload });
      checkNesting(params);
      const controller = new AbortController();
      const { scope, record } = startSocketOperation(
        { upgrade: request, authorization: authorization(ctx.connectionParams), signal: controller.signal },
        options.policy,
      );
      // Its bytes are given back when it completes or its socket closes (both abort it).
      controller.signal.addEventListener('abort', () => scope.bytes.release(), { once: true });
      const envelope = options.yoga.getEnveloped({ req: request, socket, params, scope, record } as Parameters<
        typeof options.yoga.getEnveloped
      >[0]);
      const document = envelope.parse(params.query ?? '');
      const errors = envelope.validate(envelope.schema, document);
      if (errors.length > 0) return errors;
      const contextValue = await envelope.contextFactory();
      operations.set(id, { scope, record, controller });
      busy(socket);
      const rootValue: Executors = { execute: envelope.execute, subscribe: envelope.subscribe };
      return {
        schema: envelope.schema,
        document,
        operationName: params.operationName,
        variableValues: params.variables,
        contextValue,
        rootValue,
      };
    } catch (error) {
      if (error instanceof GraphQLError) return [error];
      options.logger?.error({ err: error instanceof Error ? error.message : String(error) }, 'websocket operation failed to start');
      return [createGraphQLError('Unexpected error.')];
    }
  };
}

/** One info line per operation, as a request's (lifecycle.ts). */
function logOperation(logger: Logger | undefined, { scope, record }: StartedRequest) {
  if (logger?.isLevelEnabled('info')) logger.info({ ...requestSummary(scope, record), transport: 'websocket' }, 'request');
}
