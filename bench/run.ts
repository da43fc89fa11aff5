/**
 * The whole-order benchmark: the gateway, with each upstream client (UPSTREAM_CLIENT undici, the
 * default, and got), beside the usual alternative (Apollo Server with RESTDataSource,
 * bench/peers/apollo/), Tailcall (bench/tailcall.ts) and the hand-written optimum
 * (bench/optimum.ts), each in its own process in front of the simulator in another, driven by
 * autocannon at concurrency 1, 16 and 64, as is the gateway with its observability on (metrics
 * and traces); at 64 also the gateway with its response cache. Every gateway process starts
 * as production does, through the launcher (src/tools/start.mjs) and its heap flags. Writes
 * bench/results/latest.{md,json} and prints the markdown. Exits non-zero only when something
 * broke (an error answer, a wrong number of upstream calls, a process that died); a missed
 * target is reported, not fatal. Settings: bench/README.md.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { wholeOrderCalls } from '../src/graph/order-fields.js';
import { HOSTS, operationUrl, type UpstreamUrls } from '../src/upstream/contract.js';
import { abuseMarkdown, abuseSettings, measureAbuse, type AbuseResults } from './abuse.js';
import { heapFlags } from '../src/tools/heap-flags.mjs';
import { benchGatewayEnv, listening, measureStreams, streamsMarkdown, type StreamResults, type StreamSettings } from './streams.js';
import { fixed, issue21Targets, issue31Targets, ISSUE_31, ratio, type Target } from './targets.js';
import {
  gatewayComparable,
  TAILCALL_DIR,
  tailcallBinary,
  tailcallConfig,
  tailcallEnv,
  tailcallListening,
  tailcallQuery,
  upstreamComparable,
} from './tailcall.js';

const ROOT_URL = new URL('..', import.meta.url);
const ROOT = fileURLToPath(ROOT_URL);
const RESULTS_DIR = new URL('results/', import.meta.url);
const CONCURRENCIES = [1, 16, 64] as const;
const CUSTOMER = 'ready@demo.test';
/** The upstream calls of the benchmark's whole order: its customer has one order. */
const CALLS_PER_QUERY = wholeOrderCalls(1);
/** How a production start runs the gateway: the launcher, which execs node with the heap flags (same PID). */
const GATEWAY_START = 'dist/src/tools/start.mjs';
// Plain JavaScript without declarations: imported by a path the compiler does not follow.

function envInt(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

const settings = {
  latencyMs: envInt('BENCH_LATENCY_MS', 20, 0, 10_000),
  durationS: envInt('BENCH_DURATION_S', 10, 1, 600),
  warmupS: envInt('BENCH_WARMUP_S', 2, 0, 60),
  concurrencies: [...CONCURRENCIES],
  customer: CUSTOMER,
  gatewayNodeArgs: (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  /** What the launcher gives every gateway process here (NODE_HEAP_FLAGS, passed on, replaces them). */
  gatewayHeapFlags: heapFlags(process.env, process.constrainedMemory(), os.totalmem()),
};
const streamSettings: StreamSettings = {
  latencyMs: 50,
  deferredRuns: 20,
  subscribers: 50,
  liveWindowS: envInt('BENCH_LIVE_S', 60, 1, 600),
};
// The measured processes run on the project's own Node (the `node` devDependency), whichever
// Node runs this script (`./node_modules/.bin/tsx` alone runs the first `node` on the PATH).
const NODE_BIN = fileURLToPath(new URL('node_modules/.bin/', ROOT_URL));
const NODE = existsSync(`${NODE_BIN}node`) ? `${NODE_BIN}node` : process.execPath;
const PATH = `${NODE_BIN}:${process.env.PATH ?? ''}`;
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

// ---------------------------------------------------------------------------------------
// Building: every measured process runs compiled JavaScript on node, as in production.

const APOLLO_DIR = fileURLToPath(new URL('peers/apollo/', import.meta.url));

/** A peer that is a package of its own, installed the first time (npm ci, from npm's cache when it can). */
function installPeer(name: string, dir: string) {
  if (existsSync(`${dir}node_modules`)) return;
  log(`installing ${name} (${dir.slice(ROOT.length)}, npm ci)`);
  execFileSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit', env: { ...process.env, PATH } });
}

function build() {
  log('building dist/ (the gateway and the simulator) and the peers');
  execFileSync(NODE, ['src/tools/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  // The peers are packages of their own: neither Apollo nor Tailcall enters the gateway's install.
  installPeer('the Apollo peer', APOLLO_DIR);
  installPeer('Tailcall', TAILCALL_DIR);
  execFileSync(NODE, [`${NODE_BIN}tsc`, '-p', 'bench/tsconfig.json'], { cwd: ROOT, stdio: 'inherit' });
  const linked = `${ROOT}dist/bench/peers/apollo/node_modules`;
  if (!existsSync(linked)) symlinkSync(`${APOLLO_DIR}node_modules`, linked);
}

// ---------------------------------------------------------------------------------------
// Child processes, each a node process whose /proc entries we read.

interface Child {
  name: string;
  proc: ChildProcess;
  stderr: string[];
}
const children: Child[] = [];
const isRunning = ({ proc }: Child) => proc.exitCode === null && proc.signalCode === null;

/** Starts a compiled file on node; resolves with what `ready` finds in its stdout (the first line it accepts). */
function startChild<T>(
  name: string,
  file: string,
  env: Record<string, string>,
  ready: (line: string) => T | undefined,
  nodeArgs: string[] = [],
) {
  return startProcess(name, NODE, [...nodeArgs, file], { cwd: ROOT, env }, ready);
}

/** Starts a command as a child process of its own, whose pid is the one measured. */
function startProcess<T>(
  name: string,
  command: string,
  args: string[],
  { cwd, env }: { cwd: string; env: Record<string, string> },
  ready: (line: string) => T | undefined,
) {
  const proc = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const child: Child = { name, proc, stderr: [] };
  children.push(child);
  createInterface({ input: proc.stderr! }).on('line', (line) => {
    child.stderr.push(line);
    if (child.stderr.length > 20) child.stderr.shift();
  });
  return new Promise<{ pid: number; value: T }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 30 s`)), 30_000);
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const value = ready(line);
      if (value === undefined) return;
      clearTimeout(timer);
      resolve({ pid: proc.pid!, value });
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${child.stderr.join('\n')}`));
    });
  });
}

/** SIGTERM (a clean exit, so that a --cpu-prof profile is written), SIGKILL after 5 s. */
async function stopChildren(): Promise<void> {
  const stopping = children.filter(isRunning).map(
    ({ proc }) =>
      new Promise<void>((resolve) => {
        const kill = setTimeout(() => proc.kill('SIGKILL'), 5000);
        proc.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        proc.kill('SIGTERM');
      }),
  );
  await Promise.all(stopping);
}
process.on('exit', () => children.filter(isRunning).forEach(({ proc }) => proc.kill('SIGKILL')));
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.on(signal, () => void stopChildren().finally(() => process.exit(code)));
}

/** An OTLP endpoint that takes the observed gateway's spans and drops them. */
async function startSpanSink() {
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

// ---------------------------------------------------------------------------------------
// Measurements

function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK; // utime + stime, all threads
}

/** VmHWM (the process's peak so far) or VmRSS (now), in MB. */
function rssMb(pid: number, which: 'VmHWM' | 'VmRSS' = 'VmHWM'): number {
  const match = new RegExp(`${which}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? NaN) / 1024;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const SUBJECT_NAMES = [
  'gateway',
  'gateway-got',
  'gateway-observed',
  'gateway-traced',
  'gateway-cached',
  'apollo',
  'tailcall',
  'optimum',
] as const;
type SubjectName = (typeof SUBJECT_NAMES)[number];

/** The response cache's ttl for the cached gateway: answers are reused for that long. */
const CACHE_TTL_MS = 5000;

interface Subject {
  name: SubjectName;
  pid: number;
  request: Pick<autocannon.Options, 'url' | 'method' | 'headers' | 'body'>;
  /** The answer holds the VIN (and, for GraphQL servers, no errors). */
  verifyBody: (body: string) => boolean;
  concurrencies: readonly number[];
}

/** What autocannon's clients hold internally (v9): requests made, and the quota that ends a client. */
type ClientState = { reqsMade: number; responseMax?: number };

/**
 * Drives one server for `seconds`, then lets every connection finish the request it has in
 * flight before closing: autocannon's own stop drops them while the server still works on
 * them, which would skew per-query CPU and upstream calls by up to one query per connection.
 * So every request sent is answered. req/s counts the answers within `seconds`.
 */
function drive(subject: Subject, connections: number, seconds: number) {
  return new Promise<{ result: autocannon.Result; latencies: number[]; rps: number }>((resolve, reject) => {
    const latencies: number[] = [];
    const clients: ClientState[] = [];
    let answeredInWindow = 0;
    let windowS = 0;
    const startedAt = performance.now();
    const instance = autocannon(
      {
        ...subject.request,
        connections,
        duration: seconds + 30, // a backstop: the drain below ends the run
        setupClient: (client) => clients.push(client as unknown as ClientState),
        verifyBody: (body) => subject.verifyBody(body?.toString() ?? ''),
      },
      (error: unknown, result) => {
        clearTimeout(deadline);
        if (error) reject(error instanceof Error ? error : new Error(String(error)));
        else resolve({ result, latencies, rps: answeredInWindow / (windowS || result.duration) });
      },
    );
    // Our own latency samples: autocannon's histogram has a 1 ms resolution.
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
      if (windowS === 0) answeredInWindow++;
    });
    const deadline = setTimeout(() => {
      windowS = (performance.now() - startedAt) / 1000;
      for (const client of clients) client.responseMax = Math.max(1, client.reqsMade);
    }, seconds * 1000);
  });
}

interface Run {
  server: SubjectName;
  connections: number;
  sent: number;
  completed: number;
  p50: number;
  p90: number;
  p99: number;
  rps: number;
  cpuMsPerQuery: number;
  simulatorCpuMsPerQuery: number;
  upstreamCalls: number;
  upstreamCallsPerQuery: number;
  callsByOperation: Record<string, number>;
  /** VmHWM: the process's peak so far. */
  peakRssMb: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  mismatches: number;
}

interface CallStats {
  total: number;
  operations: Record<string, number>;
}

async function fetchJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** The one line the simulator process prints once listening. */
interface SimulatorBanner {
  urls: UpstreamUrls;
  customers: { username: string; password: string }[];
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
async function startSubjects(urls: UpstreamUrls, sinkUrl: string) {
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
  const [gateway, got, observed, traced, cached, apollo, optimum, tailcall] = await Promise.all([
    startChild('gateway', GATEWAY_START, { ...gatewayEnv, METRICS_PATH: 'off' }, listening, settings.gatewayNodeArgs),
    startChild(
      'gateway-got',
      GATEWAY_START,
      { ...gatewayEnv, METRICS_PATH: 'off', UPSTREAM_CLIENT: 'got' },
      listening,
      settings.gatewayNodeArgs,
    ),
    startChild('gateway-observed', GATEWAY_START, observability, listening),
    startChild('gateway-traced', GATEWAY_START, { ...observability, OTEL_TRACES_SAMPLER_ARG: '1' }, listening),
    startChild(
      'gateway-cached',
      GATEWAY_START,
      { ...gatewayEnv, METRICS_PATH: 'off', RESPONSE_CACHE_TTL_MS: String(CACHE_TTL_MS) },
      listening,
    ),
    startChild('apollo', 'dist/bench/peers/apollo/server.js', { ...upstream, APOLLO_PORT: '0', NODE_ENV: 'production' }, jsonLine),
    startChild('optimum', 'dist/bench/optimum.js', { ...upstream, OPTIMUM_PORT: '0' }, jsonLine),
    startTailcall(urls),
  ]);
  return { gateway, got, observed, traced, cached, apollo, optimum, tailcall };
}

/**
 * One answer from each before the load, each holding the VIN: the ones in the gateway's schema
 * must be its data exactly; those in the upstream's names (Tailcall's, the optimum's) the same
 * in what the two can be compared on (bench/tailcall.ts). Returns each answer's size in bytes.
 */
async function checkAnswers(subjects: Subject[], vin: string): Promise<Partial<Record<SubjectName, number>>> {
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

// ---------------------------------------------------------------------------------------

async function main() {
  const budgetS =
    CONCURRENCIES.length * SUBJECT_NAMES.length * (settings.warmupS + settings.durationS + 15) +
    180 +
    streamSettings.liveWindowS +
    60 +
    3 * ((await abuseSettings()).floodS + 30);
  setTimeout(() => {
    log(`gave up after ${budgetS} s`);
    void stopChildren().finally(() => process.exit(1));
  }, budgetS * 1000).unref();
  const loadBefore = os.loadavg();

  build();
  log(
    `starting the simulator (latency ${settings.latencyMs} ms), the gateway (undici, got; observability off, and on), Apollo and the optimum with ${NODE}, and Tailcall`,
  );
  const simulator = await startChild(
    'simulator',
    'dist/src/simulator/main.js',
    { SIM_PORT: '0', SIM_LATENCY_MS: String(settings.latencyMs), SIM_JITTER_MS: '0' },
    (line) => (line.startsWith('{') ? (JSON.parse(line) as SimulatorBanner) : undefined),
  );
  const urls = simulator.value.urls;
  const sink = await startSpanSink();
  const started = await startSubjects(urls, sink.url);

  // The caller, and the VIN every answer must hold, straight from the upstream.
  const customer = simulator.value.customers.find((c) => c.username === CUSTOMER);
  if (!customer) throw new Error(`the simulator has no ${CUSTOMER}`);
  const { accessToken } = await fetchJson<{ accessToken: string }>(operationUrl(urls, 'login'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: customer.username, password: customer.password }),
  });
  const auth = { authorization: `Bearer ${accessToken}` };
  const orders = await fetchJson<{ id: string; reservationId: string }[]>(operationUrl(urls, 'orderDetails'), { headers: auth });
  if (orders.length !== 1) throw new Error(`${CUSTOMER} should have exactly one order, has ${orders.length}`);
  const order = { order_id: orders[0]!.id, reservation_id: orders[0]!.reservationId };
  const { vin } = await fetchJson<{ vin?: unknown }>(operationUrl(urls, 'vehicleProductionDetails', order), { headers: auth });
  if (typeof vin !== 'string' || vin === '') throw new Error('the order has no VIN');

  const wholeOrder = readFileSync(new URL('src/client/documents/whole-order.graphql', ROOT_URL), 'utf8');
  const graphqlResponse = (body: string) => body.includes(vin) && !body.includes('"errors"');
  /**
   * A GraphQL server under load: a whole-order query by POST (the WholeOrder document, or
   * Tailcall's over its own schema), its answer holding the VIN and no error.
   */
  const graphqlSubject = (
    name: SubjectName,
    child: { pid: number; value: string },
    concurrencies: Subject['concurrencies'],
    query = wholeOrder,
  ): Subject => ({
    name,
    pid: child.pid,
    request: {
      url: child.value,
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query, operationName: 'WholeOrder' }),
    },
    verifyBody: graphqlResponse,
    concurrencies,
  });
  const subjects: Subject[] = [
    graphqlSubject('gateway', started.gateway, CONCURRENCIES),
    graphqlSubject('gateway-got', started.got, CONCURRENCIES),
    // At every concurrency, like the gateway they are compared with: a process's CPU per query
    // falls over its first tens of seconds of load (V8 optimising, the heap finding its size),
    // so each comes to its c=64 run with the same history.
    graphqlSubject('gateway-observed', started.observed, CONCURRENCIES),
    graphqlSubject('gateway-traced', started.traced, CONCURRENCIES),
    graphqlSubject('gateway-cached', started.cached, [64]),
    graphqlSubject('apollo', started.apollo, CONCURRENCIES),
    ...(started.tailcall ? [graphqlSubject('tailcall', started.tailcall, CONCURRENCIES, tailcallQuery())] : []),
    {
      name: 'optimum',
      pid: started.optimum.pid,
      request: { url: started.optimum.value, method: 'GET', headers: auth },
      verifyBody: (body) => body.includes(vin),
      concurrencies: CONCURRENCIES,
    },
  ];
  // Idle: started, settled, not yet asked anything.
  await sleep(3000);
  const idleRssMb: Partial<Record<SubjectName, number>> = Object.fromEntries(subjects.map(({ name, pid }) => [name, rssMb(pid, 'VmRSS')]));
  const answerBytes = await checkAnswers(subjects, vin);

  // Upstream call counters, kept by the simulator process outside its request log.
  const statsUrl = `${new URL(urls.AUTH_URL).origin}/__simulator/stats`;
  /** Waits until no upstream call is in flight: the counter holds still for a few latencies. */
  async function settle(): Promise<CallStats> {
    let last = await fetchJson<CallStats>(statsUrl);
    for (let i = 0; i < 40; i++) {
      await sleep(Math.max(250, 3 * settings.latencyMs));
      const now = await fetchJson<CallStats>(statsUrl);
      if (now.total === last.total) return now;
      last = now;
    }
    throw new Error('upstream calls did not settle after a run');
  }

  const problems: string[] = [];
  const runs: Run[] = [];
  measuring: for (const connections of CONCURRENCIES) {
    for (const subject of subjects.filter((s) => s.concurrencies.includes(connections))) {
      const where = `c=${connections} ${subject.name}`;
      log(`${where}: ${settings.warmupS} s warm-up, ${settings.durationS} s run`);
      if (settings.warmupS > 0) await drive(subject, connections, settings.warmupS);
      await settle();
      await fetchJson(`${statsUrl}/reset`, { method: 'POST' });
      const cpuBefore = cpuMs(subject.pid);
      const simulatorCpuBefore = cpuMs(simulator.pid);
      const { result, latencies, rps } = await drive(subject, connections, settings.durationS);
      const calls = await settle();
      const sent = result.requests.sent;
      latencies.sort((a, b) => a - b);
      const run: Run = {
        server: subject.name,
        connections,
        sent,
        completed: result.requests.total,
        p50: percentile(latencies, 50),
        p90: percentile(latencies, 90),
        p99: percentile(latencies, 99),
        rps,
        cpuMsPerQuery: (cpuMs(subject.pid) - cpuBefore) / sent,
        simulatorCpuMsPerQuery: (cpuMs(simulator.pid) - simulatorCpuBefore) / sent,
        upstreamCalls: calls.total,
        upstreamCallsPerQuery: calls.total / sent,
        callsByOperation: calls.operations,
        peakRssMb: rssMb(subject.pid),
        errors: result.errors,
        timeouts: result.timeouts,
        non2xx: result.non2xx,
        mismatches: result.mismatches,
      };
      runs.push(run);
      if (run.errors || run.timeouts || run.non2xx || run.mismatches) {
        problems.push(
          `${where}: ${run.errors} errors, ${run.timeouts} timeouts, ${run.non2xx} non-2xx, ${run.mismatches} answers without the VIN or with errors`,
        );
      }
      // The cached gateway makes fewer: that is what it is measured for.
      if (subject.name !== 'gateway-cached' && calls.total !== CALLS_PER_QUERY * sent)
        problems.push(`${where}: ${calls.total} upstream calls for ${sent} queries, not ${CALLS_PER_QUERY} each`);
      const dead = children.filter((child) => !isRunning(child));
      for (const child of dead) problems.push(`${where}: the ${child.name} process died`);
      if (dead.length > 0) break measuring;
    }
  }
  if (sink.batches() === 0) problems.push('the observed gateway exported no spans');
  sink.close();

  let streams: StreamResults | undefined;
  try {
    streams = await measureStreams(startChild, streamSettings, log);
  } catch (error) {
    problems.push(`streamed answers: ${error instanceof Error ? error.message : String(error)}`);
  }

  let abuse: AbuseResults | undefined;
  try {
    abuse = await measureAbuse(startChild, simulator.value, await abuseSettings(), log);
  } catch (error) {
    problems.push(`memory under abuse: ${error instanceof Error ? error.message : String(error)}`);
  }

  const report = buildReport(runs, { idleRssMb, answerBytes }, { streams, abuse }, problems, loadBefore);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(new URL('latest.json', RESULTS_DIR), `${JSON.stringify(report.json, null, 2)}\n`);
  writeFileSync(new URL('latest.md', RESULTS_DIR), report.markdown);
  process.stdout.write(report.markdown);
  return problems.length === 0;
}

// ---------------------------------------------------------------------------------------
// The report

const LABELS: Record<SubjectName, string> = {
  gateway: 'gateway, undici (default)',
  'gateway-got': 'gateway, got',
  'gateway-observed': 'gateway, metrics + traces on (default sampling: 1 in 10)',
  'gateway-traced': 'gateway, metrics + traces on, every request traced',
  'gateway-cached': `gateway, response cache on (${CACHE_TTL_MS / 1000} s)`,
  apollo: 'Apollo Server + RESTDataSource',
  tailcall: 'Tailcall 1.0',
  optimum: 'hand-written optimum',
};
const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
const targetTable = (targets: Target[]) => [
  row(['target', 'value', 'result']),
  row(['---', '---', '---']),
  ...targets.map(({ target, value, result }) => row([target, value, result])),
];

/** Every server's figures over Tailcall's at the same concurrency, and what its answer is. */
function tailcallMarkdown(runs: Run[], answerBytes: Partial<Record<SubjectName, number>>): string[] {
  const find = (server: SubjectName, c: number) => runs.find((run) => run.server === server && run.connections === c);
  const heading = ['## Against Tailcall', ''];
  if (!runs.some((run) => run.server === 'tailcall')) {
    return [...heading, 'Not measured: npm has no build of `@tailcallhq/core-linux-x64-gnu` for this platform (bench/peers/tailcall).', ''];
  }
  const lines = [
    ...heading,
    'Tailcall 1.0.0 (Rust; its default of one worker thread per core) over a schema that mirrors the upstream JSON, written from',
    "the gateway's declarations (bench/tailcall.ts; the configuration of the run: dist/bench/tailcall/config.graphql): the same",
    `${CALLS_PER_QUERY} calls per whole order with the caller's bearer, nothing cached, no call shared between requests; its query asks for`,
    "every field of every model. Each figure is the server's over Tailcall's at the same concurrency (below 1: less time, CPU or",
    "memory, or fewer req/s). CPU is the whole process's, every thread.",
    '',
    row(['c', 'server / Tailcall', 'p50', 'p90', 'p99', 'req/s', 'CPU ms/query', 'peak RSS']),
    row(['---:', '---', '---:', '---:', '---:', '---:', '---:', '---:']),
  ];
  for (const c of CONCURRENCIES) {
    const t = find('tailcall', c);
    for (const name of SUBJECT_NAMES) {
      const run = find(name, c);
      if (!run || name === 'tailcall') continue;
      const cells = [
        ratio(run.p50, t?.p50),
        ratio(run.p90, t?.p90),
        ratio(run.p99, t?.p99),
        ratio(run.rps, t?.rps),
        ratio(run.cpuMsPerQuery, t?.cpuMsPerQuery),
        ratio(run.peakRssMb, t?.peakRssMb),
      ];
      lines.push(row([`${c}`, LABELS[name], ...cells.map((r) => fixed(r, 2))]));
    }
  }
  const sizes = SUBJECT_NAMES.filter((name) => answerBytes[name] !== undefined).map((name) => `${LABELS[name]} ${answerBytes[name]}`);
  lines.push(
    '',
    `The answer each sends, in bytes: ${sizes.join(', ')}.`,
    '',
    "Tailcall's is the upstream's records as they came: their names (`address1`, `zipcode`, `centerPlusLocationId`), amounts",
    'as bare numbers (no currency beside them, no two decimals), timestamps and statuses as sent (no UTC form, no enum), no',
    "`availability` or shipping address picked from the list, and fields the WholeOrder document does not ask for (each record's",
    "`orderId`, `createdAt`, …). Checked against the gateway's before the load: the customer, each order id, reservation and",
    'upstream status, the VIN, the pickup centre, the estimate total, the ids of the addresses, payments and trade-in (as is',
    "the optimum's).",
    '',
  );
  return lines;
}

function buildReport(
  runs: Run[],
  { idleRssMb, answerBytes }: { idleRssMb: Partial<Record<SubjectName, number>>; answerBytes: Partial<Record<SubjectName, number>> },
  { streams, abuse }: { streams?: StreamResults; abuse?: AbuseResults },
  problems: string[],
  loadBefore: number[],
) {
  const find = (server: SubjectName, c: number) => runs.find((run) => run.server === server && run.connections === c);
  const at = (c: number) => ({
    g: find('gateway', c),
    got: find('gateway-got', c),
    a: find('apollo', c),
    t: find('tailcall', c),
    o: find('optimum', c),
    obs: find('gateway-observed', c),
    traced: find('gateway-traced', c),
    cached: find('gateway-cached', c),
  });
  const c64 = at(64);
  const targets = issue21Targets(runs, CALLS_PER_QUERY, CONCURRENCIES);
  const leanTargets = issue31Targets(runs, idleRssMb);

  const nodeVersion = execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['describe', '--always', '--dirty'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    // not a git checkout
  }
  const date = new Date().toISOString();
  const cpus = `${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'CPU'}`;
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
  const lines = [
    '# Benchmark: the whole-order query — the gateway, Apollo Server + RESTDataSource, Tailcall, the hand-written optimum',
    '',
    `${date} · commit ${commit} · node ${nodeVersion} · ${cpus} · load average ${load(loadBefore)} before, ${load(os.loadavg())} after`,
    '',
    `Simulator latency ${settings.latencyMs} ms per upstream call; ${settings.warmupS} s warm-up + ${settings.durationS} s per run;`,
    `customer ${CUSTOMER} (one order: ${CALLS_PER_QUERY} upstream calls). Every server runs compiled JavaScript in its own process`,
    `(each gateway through the production launcher, node ${settings.gatewayHeapFlags.join(' ') || 'without heap flags'}; the targets are the default client's)`,
    'on 127.0.0.1, driven by autocannon. A run ends by letting each connection finish its request in flight, so every',
    "query sent is answered: CPU (the process's utime+stime) and upstream calls are per query; req/s counts the answers",
    "within the run's duration. The machine is shared: quote the ratios of one run.",
    '',
    row([
      'c',
      'server',
      'p50 ms',
      'p90 ms',
      'p99 ms',
      'req/s',
      'CPU ms/query',
      'upstream calls/query',
      'peak RSS MB',
      'simulator CPU ms/query',
    ]),
    row(['---:', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  ];
  for (const c of CONCURRENCIES) {
    const { g, got, a, t, o, obs, traced, cached } = at(c);
    for (const run of [g, got, obs, traced, cached, a, t, o]) {
      if (!run) continue;
      lines.push(
        row([
          `${c}`,
          LABELS[run.server],
          fixed(run.p50),
          fixed(run.p90),
          fixed(run.p99),
          fixed(run.rps, 0),
          fixed(run.cpuMsPerQuery, 2),
          fixed(run.upstreamCallsPerQuery, 2),
          fixed(run.peakRssMb, 0),
          fixed(run.simulatorCpuMsPerQuery, 2),
        ]),
      );
    }
    const observedCpu = [obs, traced].map((run) => `${fixed(ratio(run?.cpuMsPerQuery, g?.cpuMsPerQuery), 2)} ×`).join(' / ');
    if (obs || traced)
      lines.push(
        row([
          `${c}`,
          '**observability on / off: CPU per query (1 in 10 / every request traced)**',
          '',
          '',
          '',
          '',
          `**${observedCpu}**`,
          '',
          '',
          '',
        ]),
      );
    for (const [client, run] of [
      ['undici', g],
      ['got', got],
    ] as const) {
      for (const [label, other] of [
        ['optimum', o],
        ['Apollo', a],
      ] as const) {
        const cells = [
          ratio(run?.p50, other?.p50),
          ratio(run?.p90, other?.p90),
          ratio(run?.p99, other?.p99),
          ratio(run?.rps, other?.rps),
          ratio(run?.cpuMsPerQuery, other?.cpuMsPerQuery),
        ];
        lines.push(
          row([
            `${c}`,
            `**gateway (${client}) / ${label}**`,
            ...cells.map((r) => `**${fixed(r, 2)}**`),
            '',
            `**${fixed(ratio(run?.peakRssMb, other?.peakRssMb), 2)}**`,
            '',
          ]),
        );
      }
    }
  }
  lines.push(
    '',
    "Peak RSS is VmHWM, the process's peak so far: the last rows of each server are its peak over the whole benchmark.",
    `Idle RSS (3 s after start, before the first request): ${(['gateway', 'gateway-got', 'gateway-observed', 'apollo', 'tailcall', 'optimum'] as const).map((name) => `${LABELS[name]} ${fixed(idleRssMb[name], 0)} MB`).join(', ')}.`,
    '',
    `The response cache (RESPONSE_CACHE_TTL_MS=${CACHE_TTL_MS}, in memory) at c=64: ${fixed(c64.cached?.upstreamCallsPerQuery, 3)} upstream calls per query`,
    `instead of ${CALLS_PER_QUERY}, ${fixed(c64.cached?.rps, 0)} req/s instead of ${fixed(c64.g?.rps, 0)}. Every request here is the same caller's same query, the`,
    'best case: a cache keyed by the caller helps a caller who asks again (a page reloaded, several tabs), not one caller for another.',
    '',
    '## Targets',
    '',
    "Issue 21's: the default gateway (undici, observability off) against Apollo and the optimum.",
    '',
    ...targetTable(targets),
    '',
    `Issue 31's: the gateway as shipped, "${LABELS['gateway-observed']}", against Tailcall at c=64 (latency at c=1), and`,
    `ahead of Apollo on every column at c=64; its peak RSS must keep to both ${ISSUE_31.peakRssMb} MB and ${ISSUE_31.peakRssOverTailcall} × Tailcall's.`,
    '',
    ...targetTable(leanTargets),
    '',
    ...tailcallMarkdown(runs, answerBytes),
    ...(streams ? streamsMarkdown(streams) : []),
    ...(abuse ? abuseMarkdown(abuse) : []),
    problems.length === 0
      ? `Nothing broke: every answer held the VIN, none had errors, every query not answered from the cache made ${CALLS_PER_QUERY} upstream calls.`
      : `**Broken:**\n\n${problems.map((problem) => `- ${problem}`).join('\n')}`,
    '',
  );
  const json = {
    date,
    commit,
    node: nodeVersion,
    cpus,
    loadAverage: { before: loadBefore, after: os.loadavg() },
    settings,
    idleRssMb,
    answerBytes,
    runs,
    targets: { issue21: targets, issue31: leanTargets },
    streams,
    abuse,
    problems,
  };
  return { markdown: lines.join('\n'), json };
}

main().then(
  async (ok) => {
    await stopChildren();
    process.exit(ok ? 0 : 1);
  },
  async (error: unknown) => {
    log(error instanceof Error ? error.message : String(error));
    for (const { name, stderr } of children) if (stderr.length > 0) log(`${name} stderr:\n${stderr.join('\n')}`);
    await stopChildren();
    process.exit(1);
  },
);
