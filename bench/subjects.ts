// The subjects measured: the gateway's variants, Apollo, Tailcall and the optimum, each started
// in its own process, and their answers checked against the gateway's before the load.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import type autocannon from 'autocannon';
import { HOSTS, type UpstreamUrls } from '../src/upstream/contract.js';
import { GC_TRACE, log, ROOT, startChild, startProcess, type WatchCollections } from './processes.js';
import { settings } from './settings.js';
import { benchGatewayEnv, listening } from './streams.js';
import { gatewayComparable, tailcallBinary, tailcallConfig, tailcallEnv, tailcallListening, upstreamComparable } from './tailcall.js';

/** How a production start runs the gateway: the launcher, which execs node with the heap flags (same PID). */
const GATEWAY_START = 'dist/src/tools/start.mjs';

export const SUBJECT_NAMES = [
  'gateway',
  'gateway-got',
  'gateway-observed',
  'gateway-traced',
  'gateway-cached',
  'apollo',
  'tailcall',
  'optimum',
] as const;
export type SubjectName = (typeof SUBJECT_NAMES)[number];

/** The response cache's ttl for the cached gateway: answers are reused for that long. */
export const CACHE_TTL_MS = 5000;

export interface Subject {
  name: SubjectName;
  pid: number;
  request: Pick<autocannon.Options, 'url' | 'method' | 'headers' | 'body'>;
  /** The answer holds the VIN (and, for GraphQL servers, no errors). */
  verifyBody: (body: string) => boolean;
  concurrencies: readonly number[];
  /** A Node process's garbage collections, for its allocation per query. */
  watchCollections?: WatchCollections;
}

/** An OTLP endpoint that takes the observed gateway's spans and drops them. */
export async function startSpanSink() {
  let batches = 0;
  const server = createServer((req, res) => {
    req.resume().on('end', () => {
      batches += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, batches: () => batches, close: () => server.close() };
}

const jsonLine = (line: string) => (line.startsWith('{') ? (JSON.parse(line) as { url: string }).url : undefined);

/** A port free now on 127.0.0.1, for a server that cannot be told to take any (Tailcall logs the port it was given). */
async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Tailcall with its configuration for these URLs, written to dist/bench/tailcall/ (where it
 * runs, and where it can be read after the run); nothing when this platform has no binary.
 */
async function startTailcall(urls: UpstreamUrls) {
  const binary = tailcallBinary();
  if (!binary) {
    log('Tailcall is not measured: npm has no build of @tailcallhq/core-linux-x64-gnu for this platform');
    return undefined;
  }
  const dir = `${ROOT}dist/bench/tailcall`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/config.graphql`, tailcallConfig(urls, await freePort()));
  return startProcess('tailcall', binary, ['start', 'config.graphql'], { cwd: dir, env: tailcallEnv(dir) }, tailcallListening);
}

/** Starts the subjects, each in its own process. */
export async function startSubjects(urls: UpstreamUrls, sinkUrl: string) {
  const upstream = Object.fromEntries(HOSTS.map((name) => [name, urls[name]]));
  // The default upstream client, named so the run says which one it measured.
  // One caller at 64 at once stands for many callers here: its caller limits let that through.
  const gatewayEnv = {
    ...benchGatewayEnv(urls),
    UPSTREAM_CLIENT: 'undici',
    CALLER_OPERATIONS_IN_FLIGHT: '1024',
    CALLER_UPSTREAM_CALLS_IN_FLIGHT: '8192',
  };
  const observability = {
    ...gatewayEnv,
    METRICS_PATH: '/metrics',
    OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
  };
  // Every Node process measured traces its collections (its allocation per query); the launcher
  // passes the flag on to the gateway's node.
  const profiled = [GC_TRACE, ...settings.gatewayNodeArgs];
  const [gateway, got, observed, traced, cached, apollo, optimum, tailcall] = await Promise.all([
    startChild('gateway', GATEWAY_START, { ...gatewayEnv, METRICS_PATH: 'off' }, listening, profiled),
    startChild('gateway-got', GATEWAY_START, { ...gatewayEnv, METRICS_PATH: 'off', UPSTREAM_CLIENT: 'got' }, listening, profiled),
    startChild('gateway-observed', GATEWAY_START, observability, listening, [GC_TRACE]),
    startChild('gateway-traced', GATEWAY_START, { ...observability, OTEL_TRACES_SAMPLER_ARG: '1' }, listening, [GC_TRACE]),
    startChild(
      'gateway-cached',
      GATEWAY_START,
      { ...gatewayEnv, METRICS_PATH: 'off', RESPONSE_CACHE_TTL_MS: String(CACHE_TTL_MS) },
      listening,
      [GC_TRACE],
    ),
    startChild('apollo', 'dist/bench/peers/apollo/server.js', { ...upstream, APOLLO_PORT: '0', NODE_ENV: 'production' }, jsonLine, [
      GC_TRACE,
    ]),
    startChild('optimum', 'dist/bench/optimum.js', { ...upstream, OPTIMUM_PORT: '0' }, jsonLine, [GC_TRACE]),
    startTailcall(urls),
  ]);
  return { gateway, got, observed, traced, cached, apollo, optimum, tailcall };
}

/**
 * One answer from each before the load, each holding the VIN: the ones in the gateway's schema
 * must be its data exactly; those in the upstream's names (Tailcall's, the optimum's) the same
 * in what the two can be compared on (bench/tailcall.ts). Returns each answer's size in bytes.
 */
export async function checkAnswers(subjects: Subject[], vin: string): Promise<Partial<Record<SubjectName, number>>> {
  const answers = new Map<SubjectName, string>();
  for (const { name, request, verifyBody } of subjects) {
    const text = await (
      await fetch(request.url, {
        method: request.method,
        headers: request.headers as Record<string, string>,
        body: request.body as string | undefined,
      })
    ).text();
    if (!verifyBody(text)) throw new Error(`${name}'s answer lacks the VIN ${vin}, or has errors: ${text.slice(0, 300)}`);
    answers.set(name, text);
  }
  const parsed = (name: SubjectName) => JSON.parse(answers.get(name)!) as Record<string, unknown>;
  const gatewayData = parsed('gateway').data;
  for (const name of answers.keys()) {
    if (name === 'optimum' || name === 'tailcall') continue;
    if (!isDeepStrictEqual(gatewayData, parsed(name).data)) throw new Error(`${name} answers other data than the gateway`);
  }
  const comparable = gatewayComparable(gatewayData);
  // The optimum answers the customer and its orders under names of its own, Tailcall under the calls' operations.
  const optimum = parsed('optimum') as { customer?: unknown; orders?: unknown };
  const tailcall = answers.has('tailcall') ? (parsed('tailcall').data as { customerDetails?: unknown; orderDetails?: unknown }) : undefined;
  const upstreamNamed = [
    ['optimum', upstreamComparable(optimum.customer, optimum.orders)] as const,
    ...(tailcall ? [['tailcall', upstreamComparable(tailcall.customerDetails, tailcall.orderDetails)] as const] : []),
  ];
  for (const [name, other] of upstreamNamed) {
    if (!isDeepStrictEqual(comparable, other)) {
      throw new Error(`${name}'s answer differs from the gateway's: ${JSON.stringify(other)} against ${JSON.stringify(comparable)}`);
    }
  }
  log(
    `every answer holds VIN ${vin}; ${[...answers.keys()].filter((name) => !upstreamNamed.some(([other]) => other === name)).join(', ')} answer the same data, ${upstreamNamed.map(([name]) => name).join(' and ')} the same ids, statuses, VIN and totals`,
  );
  return Object.fromEntries([...answers].map(([name, text]) => [name, Buffer.byteLength(text)]));
}
