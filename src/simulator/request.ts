// The simulator's request helpers: what a call carries, how it is read and checked, and
// the error replies every operation shares.
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import { operationSpec, pathParamNames, type OperationName, type OperationSpec, type OrderKey } from '../upstream/contract.js';
import type { AccessTokenCheck } from './tokens.js';

const MAX_BODY_BYTES = 1024 * 1024;
const MAX_PARAM_LENGTH = 128;

/** One call to an operation, as read from the HTTP request. */
export interface Call {
  operation: OperationName;
  /** Path after the host prefix, for error bodies. */
  path: string;
  query: Record<string, string>;
  repeated: ReadonlySet<string>;
  pathParams: Record<string, string>;
  body: ParsedBody;
  bearer: string | null;
  check: AccessTokenCheck | null;
  /** Set for operations taking an access token once the bearer is accepted. */
  userId: string;
}

export type ParsedBody = { kind: 'none' } | { kind: 'invalid' } | { kind: 'json'; value: unknown };

/** A handler's reply: a status and a JSON body. */
export interface Reply {
  status: number;
  body: unknown;
}

/**
 * A body sent piece by piece, as fast as its reader takes the pieces, until it ends or
 * `signal` aborts (the reader stopped): how the oversized and slow-drip faults arrive.
 */
export type StreamedBody = (signal: AbortSignal) => AsyncIterable<string>;

/** What the simulator sends back for a request, before any transport carries it: content-length is the transport's. */
export interface SimulatorResponse {
  status: number;
  headers: Record<string, string>;
  body: string | StreamedBody;
}

/** An error response of the contract's Error shape, thrown by a handler. */
export class SimulatedError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** The contract's Error body. */
export function errorBody(status: number, code: string, message: string, path: string) {
  return {
    statusCode: status,
    error: STATUS_CODES[status] ?? 'Error',
    code,
    message,
    path,
    timestamp: new Date().toISOString(),
  };
}

export const unauthorized = (code: 'UNAUTHORIZED' | 'TOKEN_EXPIRED' | 'invalid_grant', message: string) =>
  new SimulatedError(401, code, message, {
    'www-authenticate': code === 'TOKEN_EXPIRED' ? 'Bearer error="invalid_token", error_description="expired"' : 'Bearer',
  });
export const validationError = (message: string) => new SimulatedError(400, 'VALIDATION_ERROR', message);
export const orderNotFound = (message: string) => new SimulatedError(404, 'ORDER_NOT_FOUND', message);

export function parseBearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

export function parseQuery(search: string): { query: Record<string, string>; repeated: Set<string> } {
  const entries: Array<[string, string]> = [];
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const [key, value] of new URLSearchParams(search)) {
    if (seen.has(key)) {
      repeated.add(key);
      continue;
    }
    seen.add(key);
    entries.push([key, value]);
  }
  return { query: Object.fromEntries(entries), repeated };
}

/** Where each of the operation's parameters is sent: in the path, or else in the query. */
const placeOf = (operation: OperationName, name: string) => (pathParamNames(operation).includes(name) ? 'path' : 'query');

/** The ids of orders a call names (its parameters the contract takes from an order), in the contract's order: for ownership tests on the log. */
export function namedOrderIds(
  operation: OperationName | null,
  query: Record<string, string>,
  pathParams: Record<string, string>,
): string[] {
  if (!operation) return [];
  return Object.entries(operationSpec(operation).params ?? {}).flatMap(([name, source]) => {
    const sent = placeOf(operation, name) === 'path' ? pathParams : query;
    const value = 'order' in source && Object.hasOwn(sent, name) ? sent[name] : undefined;
    return value ? [value] : [];
  });
}

export interface RawBody {
  text: string;
  tooLarge: boolean;
}

/** A body given whole (an in-process caller's), read as the HTTP server reads one: past the limit it is too large. */
export function rawBody(text: string): RawBody {
  return { text, tooLarge: Buffer.byteLength(text) > MAX_BODY_BYTES };
}

/** The whole body (up to the limit), or null when the client went away first. */
export function readBody(req: IncomingMessage): Promise<RawBody | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else tooLarge = true;
    });
    req.on('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge }));
    req.on('error', () => resolve(null));
    req.on('close', () => resolve(null));
  });
}

export function parseBody(contentType: string | undefined, raw: RawBody): ParsedBody {
  // Like a typical JSON API framework: a body without a JSON content type is not read.
  const type = (contentType ?? '').toLowerCase();
  if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/.test(type)) return { kind: 'none' };
  if (raw.text.trim() === '') return { kind: 'none' };
  try {
    return { kind: 'json', value: JSON.parse(raw.text) as unknown };
  } catch {
    return { kind: 'invalid' };
  }
}

/** A call's parameters, by where the contract says each comes from: the order's fields it names, the arguments it passes on. */
export interface ParamsBySource {
  order: Partial<Record<OrderKey, string>>;
  argument: Record<string, string>;
}

/**
 * The operation's parameters (the contract's `params`, in the path or the query; `spec` is
 * the call's row unless a test gives another): each required one present, each given one given
 * once, not blank, of a sane length, else a 400 naming every one that is not; then each given
 * one that the contract gives values (`enum`) one of them, else a 400 saying which.
 */
export function requireParams(call: Call, spec: Pick<OperationSpec, 'path' | 'params'> = operationSpec(call.operation)): ParamsBySource {
  const problems: string[] = [];
  const params: ParamsBySource = { order: {}, argument: {} };
  const specs = Object.entries(spec.params ?? {});
  for (const [name, source] of specs) {
    const inQuery = !spec.path.includes(`{${name}}`);
    const sent = inQuery ? call.query : call.pathParams;
    const value = Object.hasOwn(sent, name) ? sent[name] : undefined;
    if (value === undefined && !source.required) continue;
    if (value === undefined || value.trim() === '') problems.push(source.required ? `${name} is required` : `${name} must not be blank`);
    else if (inQuery && call.repeated.has(name)) problems.push(`${name} must be given once`);
    else if (value.length > MAX_PARAM_LENGTH || /[\u0000-\u001f\u007f]/.test(value)) problems.push(`${name} is malformed`);
    else if ('order' in source) params.order[source.order] = value;
    else params.argument[source.argument] = value;
  }
  if (problems.length > 0) throw validationError(problems.join('; '));
  for (const [name, source] of specs) {
    const value = 'argument' in source ? params.argument[source.argument] : undefined;
    if ('argument' in source && source.enum && value !== undefined && !source.enum.includes(value))
      throw validationError(`${name} must be one of: ${source.enum.join(', ')}`);
  }
  return params;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Required non-empty string fields of a JSON object body. */
export function requireBodyStrings(call: Call, names: string[]): string[] {
  if (call.body.kind === 'invalid') throw validationError('Request body is not valid JSON');
  const body = call.body.kind === 'json' && isRecord(call.body.value) ? call.body.value : {};
  const problems: string[] = [];
  const values: string[] = [];
  for (const name of names) {
    const value = body[name];
    if (typeof value !== 'string' || value === '') problems.push(`${name} must be a non-empty string`);
    values.push(typeof value === 'string' ? value : '');
  }
  if (problems.length > 0) throw validationError(problems.join('; '));
  return values;
}
