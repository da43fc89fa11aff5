// The simulator's fault injection: per operation, a way for the upstream to fail.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type FaultMode = '500' | 'hang' | 'reset' | 'malformed' | 'html' | '429' | 'empty' | 'oversized' | 'slowdrip';

/** Every fault mode, for tests that go through them all. */
export const FAULT_MODES: readonly FaultMode[] = ['500', 'hang', 'reset', 'malformed', 'html', '429', 'empty', 'oversized', 'slowdrip'];

/** Size of the 'oversized' fault's body: larger than any gateway should hold for one call. */
export const OVERSIZED_BODY_BYTES = 8 * 1024 * 1024;

const JSON_TYPE = 'application/json; charset=utf-8';

const HTML_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Service temporarily unavailable</title></head>' +
  '<body><h1>Service temporarily unavailable</h1><p>Please try again in a few minutes.</p></body></html>\n';

/** A complete 200 answer with the given body. */
function sendOk(res: ServerResponse, contentType: string, text: string): void {
  res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Drops the connection, with a TCP reset where Node can send one. */
function resetConnection(req: IncomingMessage): void {
  const socket = req.socket as Socket & { resetAndDestroy?: () => Socket };
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

/** Valid JSON, just far too much of it: a string field padded to OVERSIZED_BODY_BYTES. */
function sendOversized(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': JSON_TYPE });
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
}

/** Headers at once, then a byte every 200 ms: a body that never finishes in time. */
function dripSlowly(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': JSON_TYPE });
  res.write('{');
  const drip = setInterval(() => res.write(' '), 200);
  res.on('close', () => clearInterval(drip));
}

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
      return sendError(500, 'INTERNAL_SERVER_ERROR', 'Internal server error');
    case '429':
      return sendError(429, 'RATE_LIMITED', 'Too many requests, retry later', { 'retry-after': '7' });
    case 'hang':
      // Never answered: close() ends the connection.
      return;
    case 'reset':
      return resetConnection(req);
  }
  // The rest answer 200 and get the body wrong.
  entry.status = 200;
  switch (mode) {
    case 'malformed':
      return sendOk(res, JSON_TYPE, '{"id": "x", ');
    case 'empty':
      return sendOk(res, JSON_TYPE, '');
    case 'html':
      return sendOk(res, 'text/html; charset=utf-8', HTML_PAGE);
    case 'oversized':
      return sendOversized(res);
    case 'slowdrip':
      return dripSlowly(res);
  }
}
