// Observability: OpenTelemetry traces of each request, operation, field that asks the
// upstream, and upstream call. Loaded only when tracing is configured.
import {
  context,
  createContextKey,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type TextMapGetter,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { FieldRef, FieldTracer } from '../graph/loaders.js';
import { CONTRACT, OPERATION_NAMES, type OperationName } from '../upstream/contract.js';
import type { CallObserver, CallWatch } from '../upstream/scope.js';
import type { TracingSettings } from './settings.js';

/**
 * What the tracing keeps in a request's record (the server's, request-record.ts): its trace,
 * and the trace's ids for the log line. Carried in the record rather than in async context,
 * so a request no trace records pays for none.
 */
export interface TracedRequest {
  trace: RequestTrace | undefined;
  readonly logFields: Record<string, string>;
}

/**
 * A request's trace. One that records keeps its context (its server span's, then its
 * operation's) and its server span, to end with the answer; one that records nothing keeps
 * only the watch its upstream calls share (the same traceparent, made once): no context.
 */
export class RequestTrace {
  constructor(
    readonly context: Context | undefined,
    readonly server: Span | undefined,
    readonly unrecorded: CallWatch | undefined,
  ) {}
}

/** What the gateway needs to trace: its plugin, and per request the field tracer and the call observer. */
export interface Tracing {
  /** The server span of each request and its operation's span: right after the plugin that makes the record. */
  plugin: Plugin;
  /** The tracer of one request's fields, under the trace its record carries. */
  fieldTracer(request: TracedRequest): FieldTracer;
  /** The observer of one request's upstream calls, under the trace its record carries; of a live poll's calls, with none. */
  callObserver(request?: TracedRequest): CallObserver;
  /** Sends the spans still buffered (at shutdown). */
  shutdown(): Promise<void>;
}

// The asking field's path travels with the context into the upstream call's span.
const FIELD_PATH = createContextKey('order-graph.field-path');
const propagator = new W3CTraceContextPropagator();
const headerGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

let contextManagerSet = false;
/** Async context for the whole process: a field's span stays current across the loaders' ticks. */
function useAsyncContext() {
  if (contextManagerSet) return;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  contextManagerSet = true;
}

/** The trace of a request whose `span` (its server span or, with none, its operation's) is current, made under `parent`. */
const traceWith = (parent: Context, span: Span, server: Span | undefined) =>
  span.isRecording()
    ? new RequestTrace(trace.setSpan(parent, span), server, undefined)
    : new RequestTrace(undefined, server, unrecordedCall(span.spanContext()));

/** Marks a span failed when the result it ends with carries errors (their codes, never their messages). */
function markErrors(span: Span, result: unknown) {
  const errors = (result as ExecutionResult | undefined)?.errors;
  if (!errors?.length) return;
  const codes = [...new Set(errors.map((error) => String(error.extensions?.code ?? 'INTERNAL_SERVER_ERROR')))];
  span.setStatus({ code: SpanStatusCode.ERROR, message: codes.join(' ') });
}

/**
 * The spans the request's record carries: the HTTP server span of each request, continuing
 * the caller's traceparent (its ids go on the request's log line; the record is made by the
 * plugin before this one), and the operation's span under it, named "query.WholeOrder".
 * Plain hooks, no async context: what hangs under them finds them in the record.
 */
function requestSpans(tracer: Tracer, untraced: ReadonlySet<string>): Plugin<Record<string, unknown>, { record?: TracedRequest }> {
  /** The operation's span, when the request's trace records (or, with no server span, as the sampler decides). */
  const operationSpan = (request: TracedRequest | undefined, document: DocumentNode, operationName: string | null | undefined) => {
    if (!request || (request.trace && !request.trace.context)) return undefined;
    const operation = getOperationAST(document, operationName);
    const name = operation?.name?.value ?? 'anonymous';
    const type = operation?.operation ?? 'query';
    const attributes = { 'graphql.execute.operationName': name, 'graphql.execute.operationType': type };
    const parent = request.trace?.context ?? ROOT_CONTEXT;
    const span = tracer.startSpan(`${type}.${name}`, { kind: SpanKind.INTERNAL, attributes }, parent);
    request.trace = traceWith(parent, span, request.trace?.server);
    return span.isRecording() ? span : undefined;
  };
  /** Ends the span with the result, or with the stream's last one. */
  const endWith = (span: Span) => ({
    onNext: ({ result }: { result: unknown }) => markErrors(span, result),
    onEnd: () => span.end(),
  });
  return {
    onRequest({ request, url, serverContext: { record } }) {
      if (!record || untraced.has(url.pathname)) return;
      const parent = propagator.extract(ROOT_CONTEXT, request.headers, headerGetter);
      const span = tracer.startSpan(
        `${request.method} ${url.pathname}`,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'url.path': url.pathname } },
        parent,
      );
      record.trace = traceWith(parent, span, span.isRecording() ? span : undefined);
      const ids = span.spanContext();
      record.logFields.trace_id = ids.traceId;
      record.logFields.span_id = ids.spanId;
    },
    onExecute({ args }) {
      const span = operationSpan((args.contextValue as { record?: TracedRequest }).record, args.document, args.operationName);
      if (!span) return;
      return {
        onExecuteDone({ result }) {
          if (isAsyncIterable(result)) return endWith(span);
          markErrors(span, result);
          span.end();
        },
      };
    },
    onSubscribe({ args }) {
      const span = operationSpan((args.contextValue as { record?: TracedRequest }).record, args.document, args.operationName);
      if (!span) return;
      return {
        onSubscribeError: () => span.setStatus({ code: SpanStatusCode.ERROR }),
        onSubscribeResult: () => endWith(span),
      };
    },
    onResponse({ response, serverContext: { record } }) {
      const span = record?.trace?.server;
      if (!span) return;
      span.setAttribute('http.response.status_code', response.status);
      if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

/** A span for each of the request's fields that asks the upstream, current while its loader's work runs. */
class FieldSpans implements FieldTracer {
  constructor(
    private readonly tracer: Tracer,
    private readonly request: TracedRequest,
  ) {}

  // Every supported sampler decides a trace's spans alike (by its parent, or by its trace id),
  // so under a request not sampled a field's span would be a no-op: the loaders skip it.
  records() {
    return this.request.trace?.context !== undefined;
  }

  start({ type, field, path }: FieldRef) {
    const parent = this.request.trace?.context ?? ROOT_CONTEXT;
    const span = this.tracer.startSpan(
      `${type}.${field}`,
      { attributes: { 'graphql.field.path': path, 'graphql.field.name': field, 'graphql.field.parent_type': type } },
      parent,
    );
    const inside = trace.setSpan(parent, span).setValue(FIELD_PATH, path);
    return {
      run: <T>(work: () => T) => context.with(inside, work),
      end(error?: unknown) {
        if (error)
          span.setStatus({
            code: SpanStatusCode.ERROR,
            message: (error as { extensions?: { code?: string } }).extensions?.code ?? 'error',
          });
        span.end();
      },
    };
  }
}

/** The W3C traceparent (and tracestate) naming a span as the parent of what the callee does. */
function traceHeaders({ traceId, spanId, traceFlags, traceState }: SpanContext): Record<string, string> {
  // Written out rather than through the propagator: it would need a context made for the
  // span on every call, only to read the span back out of it.
  const headers: Record<string, string> = { traceparent: `00-${traceId}-${spanId}-${traceFlags & TraceFlags.SAMPLED ? '01' : '00'}` };
  const state = traceState?.serialize();
  if (state) headers.tracestate = state;
  return headers;
}

/** An upstream call of a request no trace records: the request's own ids go upstream and on its log line. */
function unrecordedCall(ids: SpanContext): CallWatch {
  return { headers: traceHeaders(ids), logFields: () => ({ trace_id: ids.traceId, span_id: ids.spanId }), end: () => {} };
}

/**
 * A client span for each upstream call, whose traceparent goes upstream with it: the observer
 * of one request's calls, made for it (the scope carries it) and reading the request's trace
 * when a call starts, or of a live poll's calls, under no request.
 */
function callObservers(tracer: Tracer): (request?: TracedRequest) => CallObserver {
  // One name and attribute set per operation, made once: a call copies them.
  const named = new Map<OperationName, { name: string; attributes: Attributes }>(
    OPERATION_NAMES.map((operation) => {
      const { method, path, host } = CONTRACT[operation];
      const attributes = {
        'http.request.method': method,
        'url.template': path,
        'order_graph.upstream.operation': operation,
        'order_graph.upstream.host': host,
      };
      return [operation, { name: `${method} ${path}`, attributes }];
    }),
  );
  function start(operation: OperationName, traced: RequestTrace | undefined): CallWatch {
    // A request not sampled: no span, and the call carries the request's trace on, not sampled.
    if (traced?.unrecorded) return traced.unrecorded;
    // Inside a field's span, the call hangs under that field; else under the request's trace
    // (or, for a call no request makes, a live poll's, it starts one as the sampler decides).
    const active = context.active();
    const parent = active.getValue(FIELD_PATH) === undefined ? (traced?.context ?? ROOT_CONTEXT) : active;
    const { name, attributes } = named.get(operation)!;
    const fieldPath = parent.getValue(FIELD_PATH) as string | undefined;
    const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
    if (fieldPath) span.setAttribute('graphql.field.path', fieldPath);
    const ids = span.spanContext();
    return {
      // The call's own traceparent goes upstream, so the REST service's spans join this trace.
      headers: traceHeaders(ids),
      logFields: () => ({ trace_id: ids.traceId, span_id: ids.spanId }),
      end({ status, retries }) {
        if (typeof status === 'number') span.setAttribute('http.response.status_code', status);
        else span.setAttribute('error.type', status);
        if (retries > 0) span.setAttribute('http.request.resend_count', retries);
        if (typeof status !== 'number' || status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  }
  return (request) => new RequestCalls(start, request);
}

/** The observer of one request's calls (or, with no request, a live poll's): reads the request's trace as each call starts. */
class RequestCalls implements CallObserver {
  constructor(
    private readonly startIn: (operation: OperationName, traced: RequestTrace | undefined) => CallWatch,
    private readonly request: TracedRequest | undefined,
  ) {}

  start(operation: OperationName) {
    return this.startIn(operation, this.request?.trace);
  }
}

/**
 * Tracing over a tracer provider. Spans never carry a token, a password, a query string or
 * an upstream body: only methods, route templates, operation names, field paths, statuses.
 */
export function createTracing(provider: TracerProvider, options: { untracedPaths: readonly string[] }): Tracing {
  useAsyncContext();
  const tracer: Tracer = provider.getTracer('order-graph');
  return {
    // No document or variables as attributes: they may hold credentials (and printing costs CPU).
    plugin: requestSpans(tracer, new Set(options.untracedPaths)) as Plugin,
    fieldTracer: (request) => new FieldSpans(tracer, request),
    callObserver: callObservers(tracer),
    shutdown: () => provider.shutdown(),
  };
}

function sampler({ sampler: name, samplerRatio }: TracingSettings): Sampler {
  const root = name.endsWith('always_off')
    ? new AlwaysOffSampler()
    : name.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(samplerRatio)
      : new AlwaysOnSampler();
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

/** Tracing as the OTEL_* variables configure it, exporting over OTLP (protobuf or JSON over HTTP) or to the console. */
export function startTracing(settings: TracingSettings, untracedPaths: readonly string[]): Tracing {
  const exporter =
    settings.exporter === 'console'
      ? new ConsoleSpanExporter()
      : settings.protocol === 'http/json'
        ? new OtlpJsonExporter({ url: settings.endpoint })
        : new OtlpProtobufExporter({ url: settings.endpoint });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }),
    sampler: sampler(settings),
    spanProcessors: [settings.exporter === 'console' ? new SimpleSpanProcessor({ exporter }) : new BatchSpanProcessor({ exporter })],
  });
  return createTracing(provider, { untracedPaths });
}
