// The simulator's fault injection: per operation, a way for the upstream to fail, said
// without a socket (server.ts's HTTP server and an in-process transport each carry it out).
import { setTimeout as sleep } from 'node:timers/promises';
import type { SimulatorResponse } from './request.js';

export type FaultMode = '500' | 'hang' | 'reset' | 'malformed' | 'html' | '429' | 'empty' | 'oversized' | 'slowdrip';

/** Every fault mode, for tests that go through them all. */
export const FAULT_MODES: readonly FaultMode[] = ['500', 'hang', 'reset', 'malformed', 'html', '429', 'empty', 'oversized', 'slowdrip'];

/** Size of the 'oversized' fault's body: larger than any gateway should hold for one call. */
export const OVERSIZED_BODY_BYTES = 8 * 1024 * 1024;

const JSON_TYPE = 'application/json; charset=utf-8';

const HTML_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Service temporarily unavailable</title></head>' +
  '<body><h1>Service temporarily unavailable</h1><p>Please try again in a few minutes.</p></body></html>\n';

/** A complete 200 response with the given body. */
const ok = (contentType: string, body: string): SimulatorResponse => ({ status: 200, headers: { 'content-type': contentType }, body });

/** Valid JSON, just far too much of it: a string field padded to OVERSIZED_BODY_BYTES. */
async function* oversizedBody(): AsyncGenerator<string> {
  const chunk = 'x'.repeat(64 * 1024);
  yield '{"id":"big","padding":"';
  for (let sent = 0; sent < OVERSIZED_BODY_BYTES; sent += chunk.length) yield chunk;
  yield '"}';
}

/** A byte at once, then one every 200 ms until the reader stops: a body that never finishes in time. */
async function* slowDrip(signal: AbortSignal): AsyncGenerator<string> {
  yield '{';
  for (;;) {
    await sleep(200, undefined, { signal });
    yield ' ';
  }
}

/**
 * What a call meets under the fault: an error status, a 200 with the body wrong (cut short,
 * HTML, empty, too large, or never finished), `reset` (the connection drops) or `hang` (no
 * answer at all, until the caller gives up or the simulator closes).
 */
export function faultResponse(
  mode: FaultMode,
  error: (status: number, code: string, message: string, headers?: Record<string, string>) => SimulatorResponse,
): SimulatorResponse | 'reset' | 'hang' {
  switch (mode) {
    case '500':
      return error(500, 'INTERNAL_SERVER_ERROR', 'Internal server error');
    case '429':
      return error(429, 'RATE_LIMITED', 'Too many requests, retry later', { 'retry-after': '7' });
    case 'hang':
    case 'reset':
      return mode;
    case 'malformed':
      return ok(JSON_TYPE, '{"id": "x", ');
    case 'empty':
      return ok(JSON_TYPE, '');
    case 'html':
      return ok('text/html; charset=utf-8', HTML_PAGE);
    case 'oversized':
      return { status: 200, headers: { 'content-type': JSON_TYPE }, body: oversizedBody };
    case 'slowdrip':
      return { status: 200, headers: { 'content-type': JSON_TYPE }, body: slowDrip };
  }
}
