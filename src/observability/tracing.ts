// Observability: OpenTelemetry traces of each request, operation, field that asks the
// upstream, and upstream call. Loaded only when tracing is configured.
import { useOpenTelemetry } from '@envelop/opentelemetry';
import {
  context,
  createContextKey,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
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
import type { Plugin } from 'graphql-yoga';
import type { FieldTracer } from '../graph/loaders.js';
import { CONTRACT, OPERATION_NAMES, type OperationName } from '../upstream/contract.js';
import type { CallObserver } from '../upstream/http.js';
import type { RequestScope } from '../upstream/scope.js';
import type { TracingSettings } from './settings.js';

/** What the gateway needs to trace: its plugins, the field tracer, the call observer. */
export interface Tracing {
  /** The HTTP server span of each request, continuing the caller's traceparent: right after the scope's plugin. */
  requestPlugin: Plugin;
  /** The operation's span, named "query.WholeOrder": after any plugin that replaces the executor (graphql-jit). */
  operationPlugin: Plugin;
  fieldTracer: FieldTracer;
  callObserver: CallObserver;
  /** Sends the spans still buffered (at shutdown). */
  shutdown(): Promise<void>;
}

// The asking field's path travels with the context into the upstream call's span.
const FIELD_PATH = createContextKey('order-graph.field-path');
// The request's server span, in every context of the request (a field's or the operation's
// span may be the active one when the answer goes out).
const SERVER_SPAN = createContextKey('order-graph.server-span');
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

const idsOf = (span: Span) => ({ trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });

/**
 * The HTTP server span of each request, continuing the caller's traceparent: it is the
 * context the request is handled in, and its ids go on the request's log line (its scope's
 * log fields: the scope is made by the plugin before this one).
 */
function httpSpans(tracer: Tracer, untraced: ReadonlySet<string>): Plugin<{}, { scope?: RequestScope }> {
  const serverSpan = () => context.active().getValue(SERVER_SPAN) as Span | undefined;
  return {
    instrumentation: {
      request({ request }, wrapped) {
        const path = new URL(request.url, 'http://gateway').pathname;
        if (untraced.has(path)) return wrapped();
        const parent = propagator.extract(ROOT_CONTEXT, request.headers, headerGetter);
        const span = tracer.startSpan(`${request.method} ${path}`, { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'url.path': path } }, parent);
        return context.with(trace.setSpan(parent, span).setValue(SERVER_SPAN, span), wrapped);
      },
    },
    onRequest({ serverContext }) {
      const span = serverSpan();
      if (span && serverContext.scope) Object.assign(serverContext.scope.logFields, idsOf(span));
    },
    onResponse({ response }) {
      const span = serverSpan();
      if (!span) return;
      span.setAttribute('http.response.status_code', response.status);
      if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

const UNRECORDED_FIELD: ReturnType<FieldTracer['start']> = { run: (work) => work(), end: () => {} };

/** A span for each field that asks the upstream, current while its loader's work runs. */
function fieldTracer(tracer: Tracer): FieldTracer {
  return {
    start({ type, field, path }) {
      const parent = context.active();
      // Every supported sampler decides a trace's spans alike (by its parent, or by its trace id),
      // so under a request not sampled a field's span would be a no-op: skip it and its context.
      if (!trace.getSpan(parent)?.isRecording()) return UNRECORDED_FIELD;
      const span = tracer.startSpan(`${type}.${field}`, { attributes: { 'graphql.field.path': path, 'graphql.field.name': field, 'graphql.field.parent_type': type } }, parent);
      const inside = trace.setSpan(parent, span).setValue(FIELD_PATH, path);
      return {
        run: (work) => context.with(inside, work),
        end(error) {
          if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: (error as { extensions?: { code?: string } }).extensions?.code ?? 'error' });
          span.end();
        },
      };
    },
  };
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

/** A client span for each upstream call, whose traceparent goes upstream with it. */
function callObserver(tracer: Tracer): CallObserver {
  // One name and attribute set per operation, made once: a call copies them.
  const named = new Map<OperationName, { name: string; attributes: Attributes }>(
    OPERATION_NAMES.map((operation) => {
      const { method, path, host } = CONTRACT[operation];
      const attributes = { 'http.request.method': method, 'url.template': path, 'order_graph.upstream.operation': operation, 'order_graph.upstream.host': host };
      return [operation, { name: `${method} ${path}`, attributes }];
    }),
  );
  return {
    start(operation) {
      const parent = context.active();
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
    },
  };
}

/**
 * Tracing over a tracer provider. Spans never carry a token, a password, a query string or
 * an upstream body: only methods, route templates, operation names, field paths, statuses.
 */
export function createTracing(provider: TracerProvider, options: { serviceName: string; untracedPaths: readonly string[] }): Tracing {
  useAsyncContext();
  const tracer: Tracer = provider.getTracer('order-graph');
  return {
    requestPlugin: httpSpans(tracer, new Set(options.untracedPaths)) as Plugin,
    // Execution runs inside the operation's span. No document or variables as attributes:
    // they may hold credentials (and printing costs CPU).
    operationPlugin: useOpenTelemetry({ resolvers: false, variables: false, result: false, document: false }, provider, SpanKind.INTERNAL, {}, options.serviceName) as Plugin,
    fieldTracer: fieldTracer(tracer),
    callObserver: callObserver(tracer),
    shutdown: () => provider.shutdown(),
  };
}

function sampler({ sampler: name, samplerRatio }: TracingSettings): Sampler {
  const root = name.endsWith('always_off') ? new AlwaysOffSampler() : name.endsWith('traceidratio') ? new TraceIdRatioBasedSampler(samplerRatio) : new AlwaysOnSampler();
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
  return createTracing(provider, { serviceName: settings.serviceName, untracedPaths });
}
