// The simulator's fault injection: per operation, a way for the upstream to fail.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type FaultMode = '500' | 'hang' | 'reset' | 'malformed' | 'html' | '429' | 'empty' | 'oversized' | 'slowdrip';

/** Every fault mode, for tests that go through them all. */
export const FAULT_MODES: readonly FaultMode[] = ['500', 'hang', 'reset', 'malformed', 'html', '429', 'empty', 'oversized', 'slowdrip'];

/** Size of the 'oversized' fault's body: larger than any gateway should hold for one call. */
export const OVERSIZED_BODY_BYTES = 8 * 1024 * 1024;

/** Answers (or does not) as the fault says; records the status it sent in the log entry. */
export function applyFault(
  mode: FaultMode,
  req: IncomingMessage,
  res: ServerResponse,
  entry: { status: number },
  sendError: (status: number, code: string, message: string, headers?: Record<string, string>) => void,
): void {
  switch (mode) {
    case '500':
      sendError(500, 'INTERNAL_SERVER_ERROR', 'Internal server error');
      return;
    case '429':
      sendError(429, 'RATE_LIMITED', 'Too many requests, retry later', { 'retry-after': '7' });
      return;
    case 'hang':
      // Never answered: close() ends the connection.
      return;
    case 'reset': {
      const socket = req.socket as Socket & { resetAndDestroy?: () => Socket };
      if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
      else socket.destroy();
      return;
    }
    case 'malformed': {
      const text = '{"id": "x", ';
      entry.status = 200;
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    case 'empty':
      entry.status = 200;
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': 0 });
      res.end();
      return;
    case 'oversized': {
      // Valid JSON, just far too much of it: a string field padded to OVERSIZED_BODY_BYTES.
      entry.status = 200;
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      const chunk = 'x'.repeat(64 * 1024);
      res.write('{"id":"big","padding":"');
      let sent = 0;
      const pump = () => {
        while (sent < OVERSIZED_BODY_BYTES) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('"}');
      };
      res.on('error', () => undefined);
      pump();
      return;
    }
    case 'slowdrip': {
      // Headers at once, then a byte every 200 ms: a body that never finishes in time.
      entry.status = 200;
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.write('{');
      const drip = setInterval(() => res.write(' '), 200);
      res.on('close', () => clearInterval(drip));
      return;
    }
    case 'html': {
      const text =
        '<!DOCTYPE html>\n<html><head><title>Service temporarily unavailable</title></head>' +
        '<body><h1>Service temporarily unavailable</h1><p>Please try again in a few minutes.</p></body></html>\n';
      entry.status = 200;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
  }
}
