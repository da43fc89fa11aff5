// What one client can hold of the server's connections: a share of them per address, and
// none for long once it stops reading what it is sent.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { REQUEST_ERRORS, type RequestErrorCode } from '../error-codes.js';
import type { Config } from './config.js';
import { rawAnswer } from './headers.js';
import { addressKey } from '../upstream/scope.js';
import { clientAddress, forwardedFor, type ScopeSettings } from './request-scope.js';

/** Why the server closed a connection itself. */
export type CutReason = 'max_connections' | 'per_address' | 'slow_reader' | 'unsent_per_address' | 'request_timeout';

export interface ConnectionGuardOptions extends Pick<Config, 'maxConnectionsPerAddress' | 'slowReader'> {
  trustProxy: ScopeSettings['trustProxy'];
  /** Told of every connection cut, and why (one log line per second, a metric). */
  onCut(reason: CutReason): void;
}

/** The client a connection counts against (addressKey: an IPv6 /64 as one), or null when unknown (a proxy's connection before its first request). */
export type ClientOf = (socket: Socket) => string | null;

/** Counts by key, forgetting a key at zero, so that the map holds only what is open. */
function openCounts() {
  const counts = new Map<string, number>();
  return {
    /** Takes one for `key` unless `limit` are taken; the release function, or null when refused. */
    take(key: string, limit: number): (() => void) | null {
      const open = counts.get(key) ?? 0;
      if (open >= limit) return null;
      counts.set(key, open + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (counts.get(key) ?? 1) - 1;
        if (left > 0) counts.set(key, left);
        else counts.delete(key);
      };
    },
  };
}

/**
 * Connections per client address: a socket from an address that already holds
 * `maxConnectionsPerAddress` is closed on arrival (a WebSocket is one of them: the same
 * socket, upgraded). A trusted proxy's sockets carry many clients: there the limit applies
 * to each request's forwarded client address (its requests and WebSockets open at once),
 * answered 429 past it. `requests` and `upgrades` put that check in front of a handler.
 */
export function limitPerAddress(server: Server, { maxConnectionsPerAddress: limit, trustProxy, onCut }: ConnectionGuardOptions) {
  const sockets = openCounts();
  const proxied = openCounts();
  // A trusted proxy's connection counts against the client of the request it carries now.
  const forwarded = new WeakMap<Socket, string>();
  server.on('connection', (socket: Socket) => {
    const address = addressKey(socket.remoteAddress);
    if (!address || trustProxy(socket.remoteAddress!, 0)) return;
    const release = sockets.take(address, limit);
    if (!release) {
      onCut('per_address');
      return void socket.destroy();
    }
    socket.once('close', release);
  });
  /** For a request through a trusted proxy: the release of its forwarded client's share, or null when that client holds its limit (counted as a cut). */
  const takeProxied = (request: IncomingMessage) => {
    const socketAddress = request.socket.remoteAddress;
    if (!socketAddress || !trustProxy(socketAddress, 0)) return () => undefined;
    const client = addressKey(clientAddress(forwardedFor(request.headers), socketAddress, trustProxy) ?? socketAddress)!;
    forwarded.set(request.socket, client);
    const release = proxied.take(client, limit);
    if (!release) onCut('per_address');
    return release;
  };
  const message = `Too many open requests from your address (${limit}): finish or close some first.`;
  const clientOf: ClientOf = (socket) => {
    const address = socket.remoteAddress;
    if (!address) return null;
    return trustProxy(address, 0) ? (forwarded.get(socket) ?? null) : addressKey(address);
  };
  return {
    clientOf,
    requests: (handler: (request: IncomingMessage, response: ServerResponse) => void) => (request: IncomingMessage, response: ServerResponse) => {
      const release = takeProxied(request);
      if (!release) {
        response.writeHead(REQUEST_ERRORS.RATE_LIMITED.status, { 'content-type': 'application/json', 'retry-after': '1', connection: 'close' });
        return void response.end(JSON.stringify({ errors: [{ message, extensions: { code: 'RATE_LIMITED' satisfies RequestErrorCode } }] }));
      }
      response.once('close', release);
      handler(request, response);
    },
    upgrades: (handler: (request: IncomingMessage, socket: Duplex, head: Buffer) => void) => (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const release = takeProxied(request);
      if (!release) return void socket.end(rawAnswer(REQUEST_ERRORS.RATE_LIMITED.status));
      socket.once('close', release);
      handler(request, socket, head);
    },
  };
}

/**
 * Slow readers: a connection is closed once, for `slowReader.timeoutMs` without a break, the
 * data the server holds for it unsent (Node's buffer for the socket, which fills only when
 * the kernel's buffers are full too) is above `slowReader.maxUnsentBytes`, or has not
 * shrunk by a byte (the client stopped reading). SSE, multipart and WebSocket answers alike:
 * all are bytes waiting on a socket. And one client's connections together (`clientOf`) hold
 * at most `slowReader.maxUnsentBytesPerAddress`: past it, its connections holding the most
 * are closed at once, until the rest fit. Returns the function that stops watching.
 */
export function cutSlowReaders(server: Server, { slowReader, onCut, clientOf }: Pick<ConnectionGuardOptions, 'slowReader' | 'onCut'> & { clientOf: ClientOf }): () => void {
  const { maxUnsentBytes, timeoutMs, maxUnsentBytesPerAddress } = slowReader;
  const watched = new Map<Socket, { since: number | null; flushed: number }>();
  server.on('connection', (socket: Socket) => {
    watched.set(socket, { since: null, flushed: 0 });
    socket.once('close', () => watched.delete(socket));
  });
  const cut = (socket: Socket, reason: CutReason) => {
    watched.delete(socket);
    onCut(reason);
    socket.destroy();
  };
  const sweep = () => {
    const now = Date.now();
    const byClient = new Map<string, Socket[]>();
    for (const [socket, state] of watched) {
      const unsent = socket.writableLength;
      // bytesWritten counts what is still buffered; without it, what the kernel took.
      const flushed = socket.bytesWritten - unsent;
      const stuck = unsent > 0 && (unsent >= maxUnsentBytes || flushed === state.flushed);
      state.flushed = flushed;
      const client = unsent > 0 ? clientOf(socket) : null;
      if (client !== null) byClient.get(client)?.push(socket) ?? byClient.set(client, [socket]);
      if (!stuck) {
        state.since = null;
        continue;
      }
      state.since ??= now;
      if (now - state.since >= timeoutMs) cut(socket, 'slow_reader');
    }
    for (const sockets of byClient.values()) cutWhileOver(sockets, maxUnsentBytesPerAddress, (socket) => cut(socket, 'unsent_per_address'));
  };
  // Checked a few times per limit: a slow reader is cut within a quarter of it past the limit.
  const timer = setInterval(sweep, Math.max(50, Math.min(1000, timeoutMs / 4))).unref();
  return () => clearInterval(timer);
}

/** Cuts the sockets holding the most unsent data until what the rest hold fits `maxBytes`. */
function cutWhileOver(sockets: Socket[], maxBytes: number, cut: (socket: Socket) => void): void {
  let total = sockets.reduce((sum, socket) => sum + (socket.destroyed ? 0 : socket.writableLength), 0);
  if (total <= maxBytes) return;
  for (const socket of sockets.filter((candidate) => !candidate.destroyed).sort((a, b) => b.writableLength - a.writableLength)) {
    if (total <= maxBytes) return;
    total -= socket.writableLength;
    cut(socket);
  }
}
