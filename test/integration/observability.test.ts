// Traces, metrics and trace-linked logs, over real HTTP: the spans of one whole-order request
// (in-memory exporter), the traceparents the upstream receives, the OTLP exporters against a
// collector stub, and /metrics after known traffic.
import { createServer } from 'node:http';
import { print } from 'graphql';
import { createClient } from 'graphql-ws';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { LoginDocument, WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { startTracing } from '../../src/observability/tracing.js';
import { startSimulator } from '../../src/simulator/server.js';
import { demoCustomer, demoToken } from '../helpers/demo.js';
import { execute, graphqlClient, listen, startGateway } from '../helpers/harness.js';
import { capturedLogLines, captureTracing } from '../helpers/log-capture.js';
import { json, startStubUpstream } from '../helpers/stub-upstream.js';
import { wholeOrderCalls } from '../../src/graph/order-fields.js';
import { CONTRACT, CUSTOMER_LEVEL_OPERATIONS, operationSpec, PER_ORDER_OPERATIONS } from '../../src/upstream/contract.js';

/** The upstream calls of a whole order whose customer has one order. */
const ONE_ORDER_CALLS = wholeOrderCalls(1);

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

async function tracedGateway(options: Partial<Parameters<typeof startGateway>[0]> = {}) {
  const simulator = await startSimulator();
  const { tracing, spans } = await captureTracing();
  const gateway = await startGateway({ upstreamUrls: simulator.urls, tracing, ...options });
  cleanups.push(simulator.close, gateway.close);
  return { simulator, gateway, spans, token: await demoToken(simulator, 'ready@demo.test') };
}

/** The spans as an indented tree, children under their parent, each with its key attributes. */
function spanTree(spans: ReadableSpan[]): string {
  const byParent = new Map<string | undefined, ReadableSpan[]>();
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  for (const span of spans) {
    const parent = span.parentSpanContext?.spanId;
    const key = parent && ids.has(parent) ? parent : undefined;
    byParent.set(key, [...(byParent.get(key) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const span of (byParent.get(parent) ?? []).sort((a, b) => a.name.localeCompare(b.name))) {
      const a = span.attributes;
      const detail = [a['graphql.field.path'], a['order_graph.upstream.operation'], a['http.response.status_code']]
        .filter((v) => v !== undefined)
        .join(' ');
      lines.push(`${'  '.repeat(depth)}${span.name}${detail ? `  [${detail}]` : ''}`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n');
}

describe('traces', () => {
  it('one whole order with a caller traceparent: the server span, the operation span and an upstream span per call in the caller’s trace, each under its field', async () => {
    const { simulator, gateway, spans, token } = await tracedGateway();
    const client = graphqlClient(gateway.endpoint, token);
    client.setHeader('traceparent', TRACEPARENT);
    const { errors } = await execute(client, WholeOrderDocument);
    expect(errors).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the server span ends with the response

    const all = spans();
    expect(new Set(all.map((s) => s.spanContext().traceId))).toEqual(new Set([CALLER_TRACE]));
    const byId = new Map(all.map((s) => [s.spanContext().spanId, s]));
    const parentOf = (span: ReadableSpan) => byId.get(span.parentSpanContext?.spanId ?? '');

    const [server, ...otherServers] = all.filter((s) => s.kind === 1 /* SERVER */);
    expect(otherServers).toEqual([]);
    expect(server!.name).toBe('POST /graphql');
    expect(server!.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(server!.attributes['http.response.status_code']).toBe(200);
    const operation = all.find((s) => s.name === 'query.WholeOrder')!;
    expect(parentOf(operation)).toBe(server);

    const calls = all.filter((s) => s.kind === 2 /* CLIENT */);
    expect(calls).toHaveLength(ONE_ORDER_CALLS);
    for (const call of calls) {
      const field = parentOf(call)!;
      // Each call hangs under the field that asked for it, though the loaders batch.
      expect(field.attributes['graphql.field.path']).toBe(call.attributes['graphql.field.path']);
      expect(parentOf(field)).toBe(operation);
      expect(call.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 200 });
      expect(call.name).toBe(`GET ${call.attributes['url.template']}`);
    }
    // Each per-order call under the first of its fields, each customer-level call under the first
    // of its own (the document asks for them in the table's order).
    expect(calls.map((c) => [c.attributes['order_graph.upstream.operation'], c.attributes['graphql.field.path']]).sort()).toEqual(
      [
        ['customerDetails', 'me'],
        ['orderDetails', 'me.orders'],
        ...CUSTOMER_LEVEL_OPERATIONS.map((operation) => [operation, `me.${operationSpec(operation).customerFields![0]}`]),
        ...PER_ORDER_OPERATIONS.map((operation) => [operation, `me.orders.0.${CONTRACT[operation].orderFields[0]}`]),
      ].sort(),
    );
    console.info(`The span tree of one whole-order request:\n${spanTree(all)}`);

    // The upstream saw each call's own traceparent, in the caller's trace.
    expect(simulator.requestLog).toHaveLength(ONE_ORDER_CALLS);
    const { traceparents } = await upstreamTraceparents(token);
    expect(new Set(traceparents).size).toBe(ONE_ORDER_CALLS);
    for (const traceparent of traceparents) expect(traceparent).toMatch(new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-01$`));
  });

  it('a caller’s trace not sampled: no span recorded, and each upstream call still carries the trace, not sampled, from the gateway’s request', async () => {
    const { token } = await tracedGateway();
    const { traceparents, spans } = await upstreamTraceparents(token, `00-${CALLER_TRACE}-${CALLER_SPAN}-00`);
    expect(spans()).toEqual([]);
    // No call span exists to name: each call names the request's own (unrecorded) span as its parent.
    expect(traceparents).toHaveLength(ONE_ORDER_CALLS);
    expect(new Set(traceparents).size).toBe(1);
    expect(traceparents[0]).toMatch(new RegExp(`^00-${CALLER_TRACE}-(?!${CALLER_SPAN})[0-9a-f]{16}-00$`));
  });

  it('retries, failures and refusals on the call spans; the field span carries the failure too', async () => {
    const { simulator, gateway, spans, token } = await tracedGateway();
    simulator.setFault('priceEstimate', '500');
    simulator.setFault('nearestPickupCenter', 'hang');
    await execute(graphqlClient(gateway.endpoint, token), WholeOrderDocument);
    const all = spans();
    const estimate = all.find((s) => s.attributes['order_graph.upstream.operation'] === 'priceEstimate')!;
    expect(estimate.attributes['http.response.status_code']).toBe(500);
    expect(estimate.status.code).toBe(2 /* ERROR */);
    const pickup = all.find((s) => s.attributes['order_graph.upstream.operation'] === 'nearestPickupCenter')!;
    expect(pickup.attributes['error.type']).toBe('timeout');
    const pickupField = all.find((s) => s.spanContext().spanId === pickup.parentSpanContext?.spanId)!;
    expect(pickupField.status).toMatchObject({ code: 2, message: 'UPSTREAM_TIMEOUT' });
  });

  it('a whole order over graphql-ws: its operation span starts the trace, with each call under its field', async () => {
    const { gateway, spans, token } = await tracedGateway();
    const client = createClient({
      url: gateway.endpoint.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    cleanups.push(() => client.dispose());
    const result = await client.iterate({ query: print(WholeOrderDocument) }).next();
    expect(result.value?.errors).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 50)); // the operation span ends with its stream

    const all = spans();
    const operation = all.find((s) => s.name === 'query.WholeOrder')!;
    expect(operation.parentSpanContext).toBeUndefined();
    expect(new Set(all.map((s) => s.spanContext().traceId))).toEqual(new Set([operation.spanContext().traceId]));
    const byId = new Map(all.map((s) => [s.spanContext().spanId, s]));
    const calls = all.filter((s) => s.kind === 2 /* CLIENT */);
    expect(calls).toHaveLength(ONE_ORDER_CALLS);
    for (const call of calls) {
      const field = byId.get(call.parentSpanContext?.spanId ?? '')!;
      expect(field.attributes['graphql.field.path']).toBe(call.attributes['graphql.field.path']);
      expect(field.parentSpanContext?.spanId).toBe(operation.spanContext().spanId);
    }
  });

  it('no token or password in any span; health probes are not traced', async () => {
    const { simulator, gateway, spans } = await tracedGateway();
    const ready = demoCustomer(simulator, 'ready@demo.test');
    const { data } = await execute(graphqlClient(gateway.endpoint), LoginDocument, { username: ready.username, password: ready.password });
    const client = graphqlClient(gateway.endpoint, data!.login.accessToken);
    await execute(client, WholeOrderDocument);
    await fetch(`${gateway.origin}/healthz`);
    const text = JSON.stringify(spans().map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })));
    expect(text).not.toContain(data!.login.accessToken);
    expect(text).not.toContain(data!.login.refreshToken);
    expect(text).not.toContain(ready.password);
    expect(text).not.toMatch(/Bearer|authorization/i);
    expect(spans().map((s) => s.name)).not.toContain('GET /healthz');
  });
});

/** The traceparent of each call a whole order makes, as a stub upstream receives them. */
async function upstreamTraceparents(token: string, traceparent = TRACEPARENT) {
  const stub = await startStubUpstream((request, res) => {
    if (request.path.endsWith('/auth/me')) return json(res, 200, { id: 'u' });
    if (request.path.endsWith('/v2/order/user'))
      return json(res, 200, [{ id: 'o', reservationId: 'R', userId: 'u', status: 'READY_FOR_PICKUP' }]);
    json(res, 404, {});
  });
  const { tracing, spans } = await captureTracing();
  const gateway = await startGateway({ upstreamUrls: stub.urls, tracing });
  cleanups.push(stub.close, gateway.close);
  const client = graphqlClient(gateway.endpoint, token);
  client.setHeader('traceparent', traceparent);
  await execute(client, WholeOrderDocument);
  expect(stub.requests).toHaveLength(ONE_ORDER_CALLS);
  return { traceparents: stub.requests.map((r) => String(r.headers.traceparent)), spans };
}

describe('trace-linked logs', () => {
  it('the request line and every upstream line carry trace_id and span_id; probes are not logged at info', async () => {
    const { gateway, spans, token } = await tracedGateway();
    const before = capturedLogLines.length;
    const client = graphqlClient(gateway.endpoint, token);
    client.setHeader('x-request-id', 'linked-1');
    await execute(client, WholeOrderDocument);
    await fetch(`${gateway.origin}/readyz`);
    const lines = capturedLogLines.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
    const mine = lines.filter((line) => line.requestId === 'linked-1');
    const server = spans().find((s) => s.kind === 1)!;
    const requestLine = mine.find((line) => line.msg === 'request')!;
    expect(requestLine).toMatchObject({ level: 30, trace_id: server.spanContext().traceId, span_id: server.spanContext().spanId });
    const callLines = mine.filter((line) => line.msg === 'upstream call');
    expect(callLines).toHaveLength(ONE_ORDER_CALLS);
    const callSpans = new Set(
      spans()
        .filter((s) => s.kind === 2)
        .map((s) => s.spanContext().spanId),
    );
    for (const line of callLines) {
      expect(line.trace_id).toBe(server.spanContext().traceId);
      expect(callSpans.has(line.span_id as string)).toBe(true);
    }
    const probe = lines.find((line) => line.msg === 'request' && line.requestId !== 'linked-1');
    expect(probe?.level).toBe(20); // debug
  });
  it('a request not sampled: its line and its upstream lines carry the caller’s trace and the request’s own span id', async () => {
    const { gateway, spans, token } = await tracedGateway();
    const before = capturedLogLines.length;
    const client = graphqlClient(gateway.endpoint, token);
    client.setHeader('x-request-id', 'unsampled-1');
    client.setHeader('traceparent', `00-${CALLER_TRACE}-${CALLER_SPAN}-00`);
    await execute(client, WholeOrderDocument);
    expect(spans()).toEqual([]);
    const mine = capturedLogLines
      .slice(before)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.requestId === 'unsampled-1');
    const requestLine = mine.find((line) => line.msg === 'request')!;
    expect(requestLine.trace_id).toBe(CALLER_TRACE);
    expect(requestLine.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(requestLine.span_id).not.toBe(CALLER_SPAN);
    const callLines = mine.filter((line) => line.msg === 'upstream call');
    expect(callLines).toHaveLength(ONE_ORDER_CALLS);
    for (const line of callLines) expect(line).toMatchObject({ trace_id: CALLER_TRACE, span_id: requestLine.span_id });
  });
});

describe('OTLP export', () => {
  it.each([
    ['http/protobuf', 'application/x-protobuf'],
    ['http/json', 'application/json'],
  ] as const)('%s: the spans reach a collector', async (protocol, contentType) => {
    const received: { path: string; type: string | undefined; body: Buffer }[] = [];
    const collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ path: req.url ?? '', type: req.headers['content-type'], body: Buffer.concat(chunks) });
        res.writeHead(200, { 'content-type': contentType }).end(protocol === 'http/json' ? '{}' : '');
      });
    });
    const base = await listen(collector);
    cleanups.push(() => new Promise((resolve) => collector.close(resolve)));
    const tracing = startTracing(
      {
        exporter: 'otlp',
        protocol,
        endpoint: `${base}/v1/traces`,
        serviceName: 'order-graph-test',
        sampler: 'parentbased_always_on',
        samplerRatio: 1,
      },
      ['/healthz'],
    );
    const simulator = await startSimulator();
    const gateway = await startGateway({ upstreamUrls: simulator.urls, tracing });
    cleanups.push(simulator.close, gateway.close);
    await execute(graphqlClient(gateway.endpoint, await demoToken(simulator, 'ready@demo.test')), WholeOrderDocument);
    await tracing.shutdown(); // flushes the batch
    expect(received.length).toBeGreaterThan(0);
    expect(received[0]).toMatchObject({ path: '/v1/traces', type: contentType });
    const body = Buffer.concat(received.map((r) => r.body)).toString('latin1');
    for (const name of ['order-graph-test', 'query.WholeOrder', 'GET /vehicle/getDetails', 'me.orders.0.vehicle'])
      expect(body).toContain(name);
  });
});

describe('metrics', () => {
  const metric = (text: string, name: string, labels: Record<string, string> = {}) => {
    const line = text
      .split('\n')
      .find((l) =>
        l.startsWith(`${name}{`) || l.startsWith(`${name} `) ? Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)) : false,
      );
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  };

  it('GET /metrics after known traffic: requests by operation and outcome, errors by code, upstream calls, refusals, loads saved, in flight, process', async () => {
    const simulator = await startSimulator();
    const gateway = await startGateway({ upstreamUrls: simulator.urls, upstreamBudget: { calls: 5, concurrency: 16, retries: 4 } });
    const roomy = await startGateway({ upstreamUrls: simulator.urls, metricsPath: '/internal/metrics' });
    cleanups.push(simulator.close, gateway.close, roomy.close);
    const token = await demoToken(simulator, 'ready@demo.test');

    // Two whole orders on a roomy gateway: ok. One on a tight budget (5 calls): errors.
    await execute(graphqlClient(roomy.endpoint, token), WholeOrderDocument);
    await execute(graphqlClient(roomy.endpoint, token), WholeOrderDocument);
    await execute(graphqlClient(gateway.endpoint, token), WholeOrderDocument);
    // An operation name nobody registered, and a refused document.
    await graphqlClient(gateway.endpoint, token).rawRequest('query Evil8df30a96 { orders { id } }');
    const refused = (body: string) =>
      fetch(gateway.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body,
      });
    await refused('{"query":"{ nope }"}');
    await refused('{"query":"{ me {"}');
    await refused('{"query":5}');
    // Answered before any GraphQL plugin: still counted in and out of the in-flight gauge.
    await fetch(`${roomy.origin}/healthz`);

    const scrape = await fetch(`${roomy.origin}/internal/metrics`);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toMatch(/^text\/plain/);
    const roomyText = await scrape.text();
    expect(metric(roomyText, 'graphql_yoga_http_duration_count', { operationName: 'WholeOrder', outcome: 'ok' })).toBe(2);
    expect(metric(roomyText, 'order_graph_upstream_call_duration_seconds_count', { operation: 'priceEstimate', status_class: '2xx' })).toBe(
      2,
    );
    expect(
      metric(roomyText, 'order_graph_upstream_call_duration_seconds_count', { operation: 'customerDetails', status_class: '2xx' }),
    ).toBe(2);
    // Per whole order: the order list asked twice (me prefetch, me.orders), addresses twice.
    expect(metric(roomyText, 'order_graph_dataloader_loads_saved_total')).toBe(4);
    // The scrape itself is the request in flight.
    expect(metric(roomyText, 'order_graph_http_requests_in_flight')).toBe(1);
    expect(metric(roomyText, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(metric(roomyText, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect((await fetch(`${roomy.origin}/metrics`)).status).not.toBe(200);

    const text = await (await fetch(`${gateway.origin}/metrics`)).text();
    expect(metric(text, 'graphql_yoga_http_duration_count', { operationName: 'WholeOrder', outcome: 'errors' })).toBe(1);
    expect(metric(text, 'graphql_yoga_http_duration_count', { operationName: 'other', outcome: 'ok' })).toBe(1);
    expect(metric(text, 'graphql_envelop_error_result', { code: 'UPSTREAM_BUDGET_EXCEEDED' })).toBeGreaterThan(0);
    expect(metric(text, 'graphql_envelop_error_result', { code: 'GRAPHQL_VALIDATION_FAILED', phase: 'validate' })).toBe(1);
    expect(metric(text, 'graphql_envelop_error_result', { code: 'GRAPHQL_PARSE_FAILED', phase: 'parse' })).toBe(1);
    expect(metric(text, 'graphql_envelop_error_result', { code: 'BAD_REQUEST', phase: 'request' })).toBe(1);
    expect(metric(text, 'graphql_yoga_http_duration_count', { operationName: 'anonymous', outcome: 'refused' })).toBe(3);
    expect(metric(text, 'order_graph_upstream_calls_refused_total', { reason: 'budget' })).toBeGreaterThan(0);
    // Bounded label values: no operation name nobody registered, no id, no raw path.
    expect(text).not.toMatch(/Evil|8df30a96|[0-9a-f]{8}-[0-9a-f]{4}-|\/graphql/);
    console.info(
      `A /metrics excerpt:\n${text
        .split('\n')
        .filter((l) => /^(graphql_yoga_http_duration_count|graphql_envelop_error_result|order_graph_)/.test(l))
        .slice(0, 14)
        .join('\n')}`,
    );
  });

  it('METRICS_PATH=off serves no metrics', async () => {
    const simulator = await startSimulator();
    const gateway = await startGateway({ upstreamUrls: simulator.urls, metricsPath: null });
    cleanups.push(simulator.close, gateway.close);
    expect((await fetch(`${gateway.origin}/metrics`)).status).not.toBe(200);
  });
});
