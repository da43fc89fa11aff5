// The node:http server in front of yoga: client timeouts, connection limits, slow readers cut, a drain for stopping.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { HttpServerSettings } from './config.js';
import { cutSlowReaders, limitPerAddress, type CutReason } from './connections.js';
import { NoSniffResponse, rawResponse } from './headers.js';
import { trustedProxies } from './request-scope.js';

export type HttpServerOptions = HttpServerSettings & {
  logger?: Logger;
  /** Told of every connection the server cut, and why (the gateway's metrics count them). */
  onCut?: (reason: CutReason) => void;
  /** Takes the upgrade requests (the gateway's WebSockets); without it an upgrade is refused. */
  onUpgrade?: (request: IncomingMessage, socket: Duplex, head: Buffer) => void;
};

export interface HttpServer {
  server: Server;
  /** Listens; resolves to the port. A deeper accept queue than Node's 511 absorbs bursts. */
  listen(port: number, host: string): Promise<number>;
  /**
   * Stops taking connections and closes idle keep-alive ones at once; busy ones close after
   * their answer (the gateway marks it `Connection: close`). Resolves when every connection
   * is gone, closing the rest after `graceMs`.
   */
  drain(graceMs: number): Promise<void>;
}

// The statuses Node itself gives these client errors; anything else it cannot parse is 400.
const CLIENT_ERROR_STATUS: Record<string, number> = {
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
};

// Refusals come in floods (a slow-loris attack is thousands of sockets): one warn line per
// second with the count, not one per socket.
const SUMMARY_INTERVAL_MS = 1000;

/** How often a drain closes the connections that went idle. */
const DRAIN_SWEEP_MS = 50;

function createRefusalLog(logger: Logger | undefined) {
  const counts = new Map<string, number>();
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    for (const [message, count] of counts) logger?.warn({ connections: count }, message);
    counts.clear();
  };
  return (message: string) => {
    counts.set(message, (counts.get(message) ?? 0) + 1);
    timer ??= setTimeout(flush, SUMMARY_INTERVAL_MS).unref();
  };
}

/** The warn line for each kind of cut, with the setting behind it. */
function cutMessages(options: HttpServerOptions): Record<CutReason, string> {
  return {
    max_connections: `connection refused: ${options.maxConnections} connections are open (MAX_CONNECTIONS)`,
    per_address: `connection refused: its client address already holds ${options.maxConnectionsPerAddress} (MAX_CONNECTIONS_PER_ADDRESS)`,
    slow_reader: `connection closed: its client left more than ${options.slowReader.maxUnsentBytes} bytes unread, or read nothing, for ${options.slowReader.timeoutMs} ms (SLOW_READER_BYTES, SLOW_READER_TIMEOUT_MS)`,
    unsent_per_address: `connection closed: its client address's connections left more than ${options.slowReader.maxUnsentBytesPerAddress} bytes unread in all (SLOW_READER_BYTES_PER_ADDRESS)`,
    request_timeout: `client cut: its request did not arrive within ${options.headersTimeoutMs} ms (headers) or ${options.requestTimeoutMs} ms (whole)`,
  };
}

/**
 * The HTTP server in front of the gateway, with the limits that keep slow or excess clients
 * from holding sockets: a header deadline from connecting, a whole-request deadline, a
 * keep-alive timeout, a cap on open connections in all and per client address, and slow
 * readers cut. Each cut or refusal is logged at warn (and counted through `onCut`); running
 * out of file handles is logged as an error and never taken for the upstream's fault.
 */
export function createHttpServer(handler: RequestListener, options: HttpServerOptions): HttpServer {
  const { logger } = options;
  const refused = createRefusalLog(logger);
  const messages = cutMessages(options);
  const cut = (reason: CutReason) => {
    refused(messages[reason]);
    options.onCut?.(reason);
  };
  const server = createServer({
    // Every response object starts with nosniff (headers.ts), whoever writes it.
    ServerResponse: NoSniffResponse,
    headersTimeout: options.headersTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    // How often the two deadlines above are checked (Node's default is 30 s): a slow client
    // is cut within a quarter of the header deadline past it, at most a second.
    connectionsCheckingInterval: Math.min(1000, options.headersTimeoutMs / 4),
  });
  // Behind a trusted proxy, the per-address limit applies to the forwarded client address.
  const perAddress = limitPerAddress(server, { ...options, trustProxy: trustedProxies(options.trustedProxies), onCut: cut });
  server.on('request', perAddress.requests(handler));
  if (options.onUpgrade) server.on('upgrade', perAddress.upgrades(options.onUpgrade));
  const stopCuttingSlowReaders = cutSlowReaders(server, { slowReader: options.slowReader, onCut: cut, clients: perAddress.clients });
  server.once('close', stopCuttingSlowReaders);
  server.maxConnections = options.maxConnections;
  server.on('drop', () => cut('max_connections'));
  // Node answers what it cannot parse on its own unless someone listens; this listener
  // answers as Node does, and says when a slow client was cut.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') cut('request_timeout');
    const status = CLIENT_ERROR_STATUS[error.code ?? ''] ?? 400;
    if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy();
    socket.end(rawResponse(status));
  });
  const onError = (error: NodeJS.ErrnoException) => {
    // A listening server reports failed accepts here (EMFILE, ENFILE): the process is out of
    // file handles. Say so; the server goes on accepting once handles are free again.
    const exhausted = error.code === 'EMFILE' || error.code === 'ENFILE';
    logger?.error({ code: error.code }, exhausted ? 'out of file handles: connections refused' : 'HTTP server error');
  };

  return {
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen({ port, host, backlog: 2048 }, () => {
          server.off('error', reject).on('error', onError);
          resolve((server.address() as AddressInfo).port);
        });
      }),
    drain(graceMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // A connection whose answer began before the drain (a live stream) could not be told
      // `Connection: close`: once its answer ends it is idle, and closed here, not kept alive.
      const sweep = setInterval(() => server.closeIdleConnections(), DRAIN_SWEEP_MS);
      const force = setTimeout(() => {
        logger?.warn({ graceMs }, 'in-flight requests did not finish in time; closing them');
        server.closeAllConnections();
      }, graceMs);
      return closed.finally(() => {
        clearTimeout(force);
        clearInterval(sweep);
      });
    },
  };
}

/**
 * Warns at start-up when the process's file-handle limit cannot hold MAX_CONNECTIONS clients
 * and the upstream sockets at once: the cap is what keeps the process from running out.
 */
export function checkFileHandleLimit(maxConnections: number, upstreamSockets: number, logger: Logger) {
  let limit: number;
  try {
    limit = Number(/^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1]);
  } catch {
    return; // not Linux: nothing to read
  }
  const needed = maxConnections + upstreamSockets + 64;
  if (limit < needed) {
    logger.warn(
      { limit, needed },
      `the file-handle limit (${limit}) is below what MAX_CONNECTIONS=${maxConnections} and ${upstreamSockets} upstream sockets need (about ${needed}): raise it (ulimit -n) or lower MAX_CONNECTIONS`,
    );
  }
}
