/**
 * The whole-order benchmark (issue 5): the gateway against the hand-written optimum
 * (bench/optimum.ts), each in its own process in front of the simulator in a third, driven
 * by autocannon at concurrency 1, 16 and 64. Writes bench/results/latest.{md,json} and
 * prints the markdown. Exits non-zero only when something broke (an error answer, a wrong
 * number of upstream calls, a process that died); a missed target is reported, not fatal.
 * Settings: bench/README.md.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { HOSTS, operationUrl, type UpstreamUrls } from '../src/upstream/contract.js';

const ROOT_URL = new URL('..', import.meta.url);
const ROOT = fileURLToPath(ROOT_URL);
const RESULTS_DIR = new URL('results/', import.meta.url);
const CONCURRENCIES = [1, 16, 64] as const;
const CUSTOMER = 'ready@demo.test';
const CALLS_PER_QUERY = 8; // 2 + 6 × one order

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
};
// The measured processes run on the project's own Node (the `node` devDependency), whichever
// Node runs this script (`./node_modules/.bin/tsx` alone runs the first `node` on the PATH).
const LOCAL_NODE = fileURLToPath(new URL('node_modules/.bin/node', ROOT_URL));
const NODE = existsSync(LOCAL_NODE) ? LOCAL_NODE : process.execPath;
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

// ---------------------------------------------------------------------------------------
// Child processes, each a node process whose /proc entries we read: the gateway and the
// simulator run their compiled code (dist/, built first) as in production; the optimum, a
// single file outside src/, runs through `--import tsx` (`tsx <file>` would make it a grandchild).

interface Child {
  name: string;
  proc: ChildProcess;
  stderr: string[];
}
const children: Child[] = [];
const isRunning = ({ proc }: Child) => proc.exitCode === null && proc.signalCode === null;

/** Starts a child and resolves with what `ready` finds in its stdout (the first line it accepts). */
function startChild<T>(name: string, file: string, env: Record<string, string>, ready: (line: string) => T | undefined) {
  const nodeArgs = name === 'gateway' ? settings.gatewayNodeArgs : [];
  const proc = spawn(NODE, [...nodeArgs, ...(file.endsWith('.ts') ? ['--import', 'tsx'] : []), file], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  process.on(signal, () => void stopChildren().finally(() => process.exit(code)));
}

// ---------------------------------------------------------------------------------------
// Measurements

function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK; // utime + stime, all threads
}

function peakRssMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? NaN) / 1024;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

interface Target {
  server: 'gateway' | 'optimum';
  pid: number;
  request: Pick<autocannon.Options, 'url' | 'method' | 'headers' | 'body'>;
  /** The answer holds the VIN (and, for the gateway, no errors). */
  verifyBody: (body: string) => boolean;
}

/** What autocannon's clients hold internally (v9): requests made, and the quota that ends a client. */
type ClientState = { reqsMade: number; responseMax?: number };

/**
 * Drives one server for `seconds`, then lets every connection finish the request it has in
 * flight before closing: autocannon's own stop drops them while the server still works on
 * them, which would skew per-query CPU and upstream calls by up to one query per connection.
 * So every request sent is answered. req/s counts the answers within `seconds`.
 */
function drive(target: Target, connections: number, seconds: number) {
  return new Promise<{ result: autocannon.Result; latencies: number[]; rps: number }>((resolve, reject) => {
    const latencies: number[] = [];
    const clients: ClientState[] = [];
    let answeredInWindow = 0;
    let windowS = 0;
    const startedAt = performance.now();
    const instance = autocannon(
      {
        ...target.request,
        connections,
        duration: seconds + 30, // a backstop: the drain below ends the run
        setupClient: (client) => clients.push(client as unknown as ClientState),
        verifyBody: (body) => target.verifyBody(body?.toString() ?? ''),
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
  server: Target['server'];
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

// ---------------------------------------------------------------------------------------

async function main() {
  const budgetS = CONCURRENCIES.length * 2 * (settings.warmupS + settings.durationS + 15) + 90;
  setTimeout(() => {
    log(`gave up after ${budgetS} s`);
    void stopChildren().finally(() => process.exit(1));
  }, budgetS * 1000).unref();
  const loadBefore = os.loadavg();

  log('building dist/ (the compiled gateway and simulator)');
  execFileSync(NODE, ['src/tools/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  log(`starting the simulator (latency ${settings.latencyMs} ms), the gateway and the optimum with ${NODE}`);
  const simulator = await startChild(
    'simulator',
    'dist/src/simulator/main.js',
    { SIM_PORT: '0', SIM_LATENCY_MS: String(settings.latencyMs), SIM_JITTER_MS: '0' },
    (line) => (line.startsWith('{') ? (JSON.parse(line) as SimulatorBanner) : undefined),
  );
  const urls = simulator.value.urls;
  const upstreamEnv = Object.fromEntries(HOSTS.map((name) => [name, urls[name]]));
  const [gateway, optimum] = await Promise.all([
    startChild(
      'gateway',
      'dist/src/server/main.js',
      { ...upstreamEnv, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', GRAPHIQL: 'off' },
      (line) => /listening at (http:\/\/\S+)/.exec(line)?.[1],
    ),
    startChild('optimum', 'bench/optimum.ts', { ...upstreamEnv, OPTIMUM_PORT: '0' }, (line) =>
      line.startsWith('{') ? (JSON.parse(line) as { url: string }).url : undefined,
    ),
  ]);

  // The caller, and the VIN both answers must hold, straight from the upstream.
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

  const query = readFileSync(new URL('src/client/documents/whole-order.graphql', ROOT_URL), 'utf8');
  const gatewayHeaders = { ...auth, 'content-type': 'application/json' };
  const gatewayBody = JSON.stringify({ query, operationName: 'WholeOrder' });
  const targets: Target[] = [
    {
      server: 'gateway',
      pid: gateway.pid,
      request: { url: gateway.value, method: 'POST', headers: gatewayHeaders, body: gatewayBody },
      verifyBody: (body) => body.includes(vin) && !body.includes('"errors"'),
    },
    {
      server: 'optimum',
      pid: optimum.pid,
      request: { url: optimum.value, method: 'GET', headers: auth },
      verifyBody: (body) => body.includes(vin),
    },
  ];
  type WithVin = { vehicle?: { vin?: string } | null }[] | null;
  const gatewayAnswer = await fetchJson<{ errors?: unknown; data?: { me?: { orders?: WithVin } | null } }>(
    gateway.value,
    { method: 'POST', headers: gatewayHeaders, body: gatewayBody },
  );
  if (gatewayAnswer.errors) throw new Error(`the gateway answered with errors: ${JSON.stringify(gatewayAnswer.errors)}`);
  if (gatewayAnswer.data?.me?.orders?.[0]?.vehicle?.vin !== vin) throw new Error(`the gateway's answer lacks the VIN ${vin}`);
  const optimumAnswer = await fetchJson<{ orders?: WithVin }>(optimum.value, { headers: auth });
  if (optimumAnswer.orders?.[0]?.vehicle?.vin !== vin) throw new Error(`the optimum's answer lacks the VIN ${vin}`);
  log(`both answers hold VIN ${vin}; the gateway's has no errors`);

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
    for (const target of targets) {
      const where = `c=${connections} ${target.server}`;
      log(`${where}: ${settings.warmupS} s warm-up, ${settings.durationS} s run`);
      if (settings.warmupS > 0) await drive(target, connections, settings.warmupS);
      await settle();
      await fetchJson(`${statsUrl}/reset`, { method: 'POST' });
      const cpuBefore = cpuMs(target.pid);
      const simulatorCpuBefore = cpuMs(simulator.pid);
      const { result, latencies, rps } = await drive(target, connections, settings.durationS);
      const calls = await settle();
      const sent = result.requests.sent;
      latencies.sort((a, b) => a - b);
      const run: Run = {
        server: target.server,
        connections,
        sent,
        completed: result.requests.total,
        p50: percentile(latencies, 50),
        p90: percentile(latencies, 90),
        p99: percentile(latencies, 99),
        rps,
        cpuMsPerQuery: (cpuMs(target.pid) - cpuBefore) / sent,
        simulatorCpuMsPerQuery: (cpuMs(simulator.pid) - simulatorCpuBefore) / sent,
        upstreamCalls: calls.total,
        upstreamCallsPerQuery: calls.total / sent,
        callsByOperation: calls.operations,
        peakRssMb: peakRssMb(target.pid),
        errors: result.errors,
        timeouts: result.timeouts,
        non2xx: result.non2xx,
        mismatches: result.mismatches,
      };
      runs.push(run);
      if (run.errors || run.timeouts || run.non2xx || run.mismatches) {
        problems.push(
          `${where}: ${run.errors} errors, ${run.timeouts} timeouts, ${run.non2xx} non-2xx, ` +
            `${run.mismatches} answers without the VIN or with errors`,
        );
      }
      if (calls.total !== CALLS_PER_QUERY * sent) {
        problems.push(`${where}: ${calls.total} upstream calls for ${sent} queries, not ${CALLS_PER_QUERY} each`);
      }
      const dead = children.filter((child) => !isRunning(child));
      for (const child of dead) problems.push(`${where}: the ${child.name} process died`);
      if (dead.length > 0) break measuring;
    }
  }

  const report = buildReport(runs, problems, loadBefore);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(new URL('latest.json', RESULTS_DIR), `${JSON.stringify(report.json, null, 2)}\n`);
  writeFileSync(new URL('latest.md', RESULTS_DIR), report.markdown);
  process.stdout.write(report.markdown);
  return problems.length === 0;
}

/** The one line the simulator process prints once listening. */
interface SimulatorBanner {
  urls: UpstreamUrls;
  customers: { username: string; password: string }[];
}

// ---------------------------------------------------------------------------------------
// The report

const fixed = (value: number | undefined, digits = 1) =>
  value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);
const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : a / b);
const verdict = (pass: boolean | undefined) => (pass === undefined ? 'not measured' : pass ? 'pass' : 'FAIL');

function buildReport(runs: Run[], problems: string[], loadBefore: number[]) {
  const find = (server: Run['server'], c: number) => runs.find((run) => run.server === server && run.connections === c);
  const meanCpu = (server: Run['server']) => {
    const mine = runs.filter((run) => run.server === server);
    const queries = mine.reduce((total, run) => total + run.sent, 0);
    return queries === 0 ? undefined : mine.reduce((total, run) => total + run.cpuMsPerQuery * run.sent, 0) / queries;
  };
  const perConcurrency = CONCURRENCIES.map((c) => {
    const g = find('gateway', c);
    const o = find('optimum', c);
    return {
      connections: c,
      g,
      o,
      p50: ratio(g?.p50, o?.p50),
      p90: ratio(g?.p90, o?.p90),
      p99: ratio(g?.p99, o?.p99),
      throughput: ratio(g?.rps, o?.rps),
      cpu: ratio(g?.cpuMsPerQuery, o?.cpuMsPerQuery),
    };
  });
  const [c1, c16, c64] = perConcurrency as [(typeof perConcurrency)[number], (typeof perConcurrency)[number], (typeof perConcurrency)[number]];
  const cpuAllRuns = ratio(meanCpu('gateway'), meanCpu('optimum'));
  const calls = perConcurrency.map(({ g }) => g?.upstreamCallsPerQuery);
  const rss = c64.g?.peakRssMb;
  const p50Gap = ({ g, o }: typeof c1, slackMs: number) => ({
    value: `${fixed(g?.p50)} vs ${fixed(o?.p50)} ms (+${fixed(g && o && g.p50 - o.p50)})`,
    result: verdict(g && o && g.p50 <= o.p50 + slackMs),
  });
  const targets = [
    { target: 'c=1: gateway p50 ≤ optimum p50 + 3 ms', ...p50Gap(c1, 3) },
    { target: 'c=16: gateway p50 ≤ optimum p50 + 5 ms', ...p50Gap(c16, 5) },
    {
      target: 'gateway CPU per query ≤ 3.0 × optimum (all runs)',
      value: `${fixed(cpuAllRuns, 2)} ×`,
      result: verdict(cpuAllRuns === undefined ? undefined : cpuAllRuns <= 3),
    },
    {
      target: 'c=64: gateway throughput ≥ 0.4 × optimum',
      value: `${fixed(c64.throughput, 2)} ×`,
      result: verdict(c64.throughput === undefined ? undefined : c64.throughput >= 0.4),
    },
    {
      target: 'exactly 8 upstream calls per query, at c=1 / 16 / 64',
      value: calls.map((n) => fixed(n, 2)).join(' / '),
      result: verdict(calls.includes(undefined) ? undefined : calls.every((n) => n === CALLS_PER_QUERY)),
    },
    { target: 'gateway peak RSS < 150 MB at c=64', value: `${fixed(rss)} MB`, result: verdict(rss === undefined ? undefined : rss < 150) },
  ];

  const nodeVersion = execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();
  let commit = 'unknown';
  try {
    const git = ['describe', '--always', '--dirty'];
    commit = execFileSync('git', git, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    // not a git checkout
  }
  const date = new Date().toISOString();
  const cpus = `${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'CPU'}`;
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const lines = [
    '# Benchmark: the whole-order query, gateway vs the hand-written optimum',
    '',
    `${date} · commit ${commit} · node ${nodeVersion} · ${cpus} · load average ${load(loadBefore)} before, ${load(os.loadavg())} after`,
    '',
    `Simulator latency ${settings.latencyMs} ms per upstream call; ${settings.warmupS} s warm-up + ${settings.durationS} s per run;`,
    `customer ${CUSTOMER} (one order: ${CALLS_PER_QUERY} upstream calls). Simulator, gateway and optimum each in its own process`,
    'on 127.0.0.1, driven by autocannon. A run ends by letting each connection finish its request in flight, so every',
    "query sent is answered: CPU (the process's utime+stime) and upstream calls are per query; req/s counts the answers",
    "within the run's duration. The machine is shared: quote the ratios.",
    '',
    row(['c', 'server', 'p50 ms', 'p90 ms', 'p99 ms', 'req/s', 'CPU ms/query', 'upstream calls/query', 'simulator CPU ms/query']),
    row(['---:', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
  ];
  for (const { connections, g, o, ...ratios } of perConcurrency) {
    for (const run of [g, o]) {
      if (!run) continue;
      const { p50, p90, p99, rps, cpuMsPerQuery, upstreamCallsPerQuery, simulatorCpuMsPerQuery } = run;
      lines.push(row([`${connections}`, run.server, fixed(p50), fixed(p90), fixed(p99), fixed(rps, 0), fixed(cpuMsPerQuery, 2), fixed(upstreamCallsPerQuery, 2), fixed(simulatorCpuMsPerQuery, 2)]));
    }
    const { p50, p90, p99, throughput, cpu } = ratios;
    lines.push(row([`${connections}`, '**gateway / optimum**', ...[p50, p90, p99, throughput, cpu].map((r) => `**${fixed(r, 2)}**`), '', '']));
  }
  lines.push(
    '',
    `Peak RSS (VmHWM) at the end of c=64: gateway ${fixed(rss)} MB, optimum ${fixed(c64.o?.peakRssMb)} MB.`,
    '',
    '## Targets (issue 5)',
    '',
    row(['target', 'value', 'result']),
    row(['---', '---', '---']),
    ...targets.map(({ target, value, result }) => row([target, value, result])),
    '',
    problems.length === 0
      ? 'Nothing broke: every answer held the VIN, none had errors, every query made 8 upstream calls.'
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
    runs,
    ratios: {
      cpuAllRuns,
      byConcurrency: perConcurrency.map(({ connections, p50, p90, p99, throughput, cpu }) => ({ connections, p50, p90, p99, throughput, cpu })),
    },
    targets,
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
