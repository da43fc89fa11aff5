// What one client can hold of the server's connections: a share of them per address, and
// none for long once it stops reading what it is sent.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { REQUEST_ERRORS, type RequestErrorCode } from '../error-codes.js';
import type { Config } from './config.js';
import { rawResponse } from './headers.js';
import { addressKey } from '../upstream/scope.js';
import { clientAddress, forwardedFor, type ScopeSettings } from './request-scope.js';

/** Why the server closed a connection itself. */
export type CutReason = 'max_connections' | 'per_address' | 'slow_reader' | 'unsent_per_address' | 'request_timeout';

export interface ConnectionGuardOptions extends Pick<Config, 'maxConnectionsPerAddress' | 'slowReader'> {
  trustProxy: ScopeSettings['trustProxy'];
  /** Told of every connection cut, and why (one log line per second, a metric). */
  onCut(reason: CutReason): void;
}

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
 * answered 429 past it. And a client whose connections hold more than
 * `slowReader.maxUnsentBytesPerAddress` unsent is given no more work: its new request is cut
 * (a proxy's, 429) before anything runs. `requests` and `upgrades` put those checks in front
 * of a handler; `clients` are the sockets each client holds now (the slow-reader sweep reads them).
 */
export function limitPerAddress(
  server: Server,
  { maxConnectionsPerAddress: limit, slowReader, trustProxy, onCut }: ConnectionGuardOptions,
) {
  const sockets = openCounts();
  const proxied = openCounts();
  // Each client's sockets: its own, or a trusted proxy's while it carries the client's request.
  const held = new Map<string, Set<Socket>>();
  const hold = (client: string, socket: Socket) => {
    const set = held.get(client) ?? new Set();
    held.set(client, set.add(socket));
    return () => {
      set.delete(socket);
      if (set.size === 0 && held.get(client) === set) held.delete(client);
    };
  };
  const unsent = (client: string) => [...(held.get(client) ?? [])].reduce((sum, socket) => sum + socket.writableLength, 0);
  // A direct connection's client, read once.
  const direct = new WeakMap<Socket, string>();
  server.on('connection', (socket: Socket) => {
    const address = addressKey(socket.remoteAddress);
    if (!address || trustProxy(socket.remoteAddress!, 0)) return;
    const release = sockets.take(address, limit);
    if (!release) {
      onCut('per_address');
      return void socket.destroy();
    }
    direct.set(socket, address);
    const letGo = hold(address, socket);
    socket.once('close', () => (release(), letGo()));
  });
  /**
   * What a request may hold: through a trusted proxy, a share of its forwarded client's (its
   * release, or null when that client holds its limit); directly, nothing more. Refused (null,
   * counted as a cut) too when its client's connections hold more unsent data than allowed.
   */
  const admit = (request: IncomingMessage): (() => void) | null => {
    const address = direct.get(request.socket);
    const socketAddress = request.socket.remoteAddress;
    if (address !== undefined || !socketAddress || !trustProxy(socketAddress, 0)) {
      if (address === undefined || unsent(address) <= slowReader.maxUnsentBytesPerAddress) return () => undefined;
      onCut('unsent_per_address');
      return null;
    }
    const client = addressKey(clientAddress(forwardedFor(request.headers), socketAddress, trustProxy) ?? socketAddress)!;
    if (unsent(client) > slowReader.maxUnsentBytesPerAddress) {
      onCut('unsent_per_address');
      return null;
    }
    const release = proxied.take(client, limit);
    if (!release) {
      onCut('per_address');
      return null;
    }
    const letGo = hold(client, request.socket);
    return () => (release(), letGo());
  };
  const message = `Too many open requests from your address (${limit}), or too much of what they were sent still unread: finish or close some first.`;
  return {
    clients: () => held.values(),
    requests:
      (handler: (request: IncomingMessage, response: ServerResponse) => void) => (request: IncomingMessage, response: ServerResponse) => {
        const release = admit(request);
        if (!release) return refuse(response, message);
        response.once('close', release);
        handler(request, response);
      },
    upgrades:
      (handler: (request: IncomingMessage, socket: Duplex, head: Buffer) => void) =>
      (request: IncomingMessage, socket: Duplex, head: Buffer) => {
        const release = admit(request);
        if (!release) return void socket.end(rawResponse(REQUEST_ERRORS.RATE_LIMITED.status));
        socket.once('close', release);
        handler(request, socket, head);
      },
  };
}

/** A request refused for its address: 429, and the connection closed. */
function refuse(response: ServerResponse, message: string): void {
  response.writeHead(REQUEST_ERRORS.RATE_LIMITED.status, { 'content-type': 'application/json', 'retry-after': '1', connection: 'close' });
  response.end(JSON.stringify({ errors: [{ message, extensions: { code: 'RATE_LIMITED' satisfies RequestErrorCode } }] }));
}

/**
 * Slow readers: a connection is closed once, for `slowReader.timeoutMs` without a break, the
 * data the server holds for it unsent (Node's buffer for the socket, which fills only when
 * the kernel's buffers are full too) is above `slowReader.maxUnsentBytes`, or has not
 * shrunk by a byte (the client stopped reading). SSE, multipart and WebSocket answers alike:
 * all are bytes waiting on a socket. And one client's connections together (`clients`) hold
 * at most `slowReader.maxUnsentBytesPerAddress`: past it, its connections holding the most
 * are closed at once, until the rest fit. Returns the function that stops watching.
 */
export function cutSlowReaders(
  server: Server,
  { slowReader, onCut, clients }: Pick<ConnectionGuardOptions, 'slowReader' | 'onCut'> & { clients: () => Iterable<ReadonlySet<Socket>> },
): () => void {
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
    for (const [socket, state] of watched) {
      const unsent = socket.writableLength;
      // bytesWritten counts what is still buffered; without it, what the kernel took.
      const flushed = socket.bytesWritten - unsent;
      const stuck = unsent > 0 && (unsent >= maxUnsentBytes || flushed === state.flushed);
      state.flushed = flushed;
      if (!stuck) {
        state.since = null;
        continue;
      }
      state.since ??= now;
      if (now - state.since >= timeoutMs) cut(socket, 'slow_reader');
    }
    for (const sockets of clients()) cutWhileOver([...sockets], maxUnsentBytesPerAddress, (socket) => cut(socket, 'unsent_per_address'));
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
