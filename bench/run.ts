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
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { operationUrl, type UpstreamUrls } from '../src/upstream/contract.js';
import { abuseSettings, measureAbuse, type AbuseResults } from './abuse.js';
import { cpuMs, drive, percentile, rssMb, type CallStats, type Run } from './measure.js';
import { build, children, isRunning, log, NODE, ROOT_URL, startChild, stopChildren, type WatchCollections } from './processes.js';
import { buildReport } from './report.js';
import { CALLS_PER_QUERY, CONCURRENCIES, CUSTOMER, settings, streamSettings } from './settings.js';
import { measureStreams, type StreamResults } from './streams.js';
import { checkAnswers, startSpanSink, startSubjects, SUBJECT_NAMES, type Subject, type SubjectName } from './subjects.js';
import { tailcallQuery } from './tailcall.js';

const RESULTS_DIR = new URL('results/', import.meta.url);

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
    child: { pid: number; value: string; watchCollections?: WatchCollections },
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
    watchCollections: child.watchCollections,
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
      watchCollections: started.optimum.watchCollections,
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
      const { result, latencies, rps, allocatedBytesPerQuery } = await drive(subject, connections, settings.durationS);
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
        allocKbPerQuery: allocatedBytesPerQuery === undefined ? undefined : allocatedBytesPerQuery / 1024,
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
