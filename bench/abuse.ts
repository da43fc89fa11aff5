/**
 * Memory under abuse: the peak RSS of a production gateway (started by the launcher, its heap
 * sized for the Deployment's memory limit) under each of three floods, each against a fresh
 * process, beside the Deployment's limit:
 * - a document flood: distinct documents, each inside every query limit, sent without a token
 *   by 64 clients at once, half of them twice (so compiled);
 * - non-reading clients: 16 addresses × 256 connections (MAX_CONNECTIONS), each sending one
 *   whole-order query of 20 aliases (about 200 kB of answer) with a customer's token, and
 *   reading nothing;
 * - a WebSocket flood: one socket, one customer's token, 3,000 whole-order operations at once;
 * - an amplified estimate, and a crowd of large fields, from a hostile upstream (issue 39's items
 *   1 and 3: test/helpers/hostile-upstream.ts, which test/integration/memory-bounds.test.ts asserts).
 * `npm run bench:abuse` runs it alone; `npm run bench` runs it after the load benchmark.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest, Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { print } from 'graphql';
import { createClient } from 'graphql-ws';
import { WebSocket } from 'ws';
import { WholeOrderDocument } from '../src/client/__generated__/graphql.js';
import { createOrderClient } from '../src/client/index.js';
import { startSimulator } from '../src/simulator/server.js';
import { heapFlags } from '../src/tools/heap-flags.mjs';
import { HOSTS, type UpstreamUrls } from '../src/upstream/contract.js';
import { amplifiedEstimate, crowdOfLargeFields, deploymentMemoryLimit, hostileUpstream, tally } from '../test/helpers/hostile-upstream.js';
import type { Start } from './streams.js';

export interface AbuseSettings {
  /** The Deployment's memory limit, in MiB (deploy/kubernetes/deployment.yaml). */
  limitMib: number;
  /** The heap flags the launcher gives a process with that limit. */
  heapFlags: string[];
  floodS: number;
}

export interface ProbeResult {
  name: string;
  what: string;
  peakRssMb: number;
  /** What the flood got: answers, refusals, cuts. */
  outcome: string;
}

export interface AbuseResults {
  settings: AbuseSettings;
  probes: ProbeResult[];
}

const MB = 1e6;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const status = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

/** The most RSS the process had while `work` ran (VmHWM, its own high-water mark; sampled too, should the process die). */
async function peakDuring(pid: number, work: () => Promise<string>): Promise<{ peakRssMb: number; outcome: string }> {
  let peak = 0;
  let died = false;
  const sample = setInterval(() => {
    try {
      peak = Math.max(peak, status(pid, 'VmHWM'));
    } catch {
      died = true;
    }
  }, 100);
  const outcome = await work();
  await sleep(500);
  clearInterval(sample);
  try {
    peak = Math.max(peak, status(pid, 'VmHWM'));
  } catch {
    died = true;
  }
  return { peakRssMb: peak / MB, outcome: died ? `${outcome}; the gateway died` : outcome };
}

/** A document of about `fields` selections, distinct by `n`, inside every query limit. */
function distinctDocument(n: number): string {
  const fields = [
    'id',
    'reservationId',
    'status',
    'rawStatus',
    'createdAt',
    'updatedAt',
    'cancelledAt',
    'completedAt',
    'buildEditableUntil',
    'delivered',
  ];
  const fragments = Array.from(
    { length: 12 },
    (_, f) =>
      `fragment F${n}x${f} on Order { ${fields.join(' ')} product { model trim country } configuration { exterior interior wheel trim } }`,
  );
  return `query Flood${n} { orders(first: ${n % 100}) { ${fragments.map((_, f) => `...F${n}x${f}`).join(' ')} } }\n${fragments.join('\n')}`;
}

async function documentFlood(endpoint: string, seconds: number): Promise<string> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const until = Date.now() + seconds * 1000;
  let sent = 0;
  const post = (query: string) =>
    new Promise<void>((resolve) => {
      const req = httpRequest(endpoint, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', () => resolve());
      req.end(JSON.stringify({ query }));
    });
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (Date.now() < until) {
        const n = sent++;
        await post(distinctDocument(n));
        if (n % 2 === 0) await post(distinctDocument(n));
      }
    }),
  );
  agent.destroy();
  return `${sent} distinct documents in ${seconds} s, half of them twice`;
}

async function nonReaders(endpoint: string, tokens: string[], seconds: number): Promise<string> {
  const { port } = new URL(endpoint);
  const wholeOrder = print(WholeOrderDocument);
  const query = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: me { orders { ...WholeOrderFields } }`).join(' ')} } ${wholeOrder.slice(wholeOrder.indexOf('fragment'))}`;
  const body = JSON.stringify({ query });
  const sockets = await Promise.all(
    Array.from({ length: 16 * 256 }, (_, i) => {
      const localAddress = `127.0.0.${1 + Math.floor(i / 256)}`;
      return new Promise<Socket>((resolve) => {
        const socket = connect({ port: Number(port), host: '127.0.0.1', localAddress }, () => {
          socket.write(
            `POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAuthorization: Bearer ${tokens[i % tokens.length]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
          );
          socket.pause();
          resolve(socket);
        });
        socket.on('error', () => resolve(socket));
      });
    }),
  );
  await sleep(seconds * 1000);
  for (const socket of sockets) socket.destroy();
  return `${sockets.length} connections from 16 addresses, with the tokens of ${tokens.length} customers, sent their query and read nothing for ${seconds} s`;
}

async function webSocketFlood(endpoint: string, token: string): Promise<string> {
  const client = createClient({
    url: endpoint.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  const query = print(WholeOrderDocument);
  const codes = new Map<string, number>();
  await Promise.all(
    Array.from(
      { length: 3000 },
      () =>
        new Promise<void>((resolve) => {
          client.subscribe(
            { query },
            {
              next: (result) => {
                const code = String(result.errors?.[0]?.extensions?.code ?? 'whole');
                codes.set(code, (codes.get(code) ?? 0) + 1);
              },
              error: () => resolve(),
              complete: () => resolve(),
            },
          );
        }),
    ),
  );
  await client.dispose();
  return `3,000 whole orders on one WebSocket: ${[...codes].map(([code, count]) => `${count} ${code}`).join(', ')}`;
}

/** The simulator the gateways are in front of: its URLs and its demo customers. */
export interface AbuseUpstream {
  urls: UpstreamUrls;
  customers: { username: string; password: string }[];
}

export async function measureAbuse(
  start: Start,
  simulator: AbuseUpstream,
  settings: AbuseSettings,
  log: (line: string) => void,
): Promise<AbuseResults> {
  const gateway = (name: string, urls: UpstreamUrls) =>
    start(
      name,
      'dist/src/tools/start.mjs',
      {
        ...Object.fromEntries(HOSTS.map((host) => [host, urls[host]])),
        PORT: '0',
        HOST: '0.0.0.0',
        LOG_LEVEL: 'error',
        NODE_ENV: 'production',
        ALLOWED_HOSTS: 'localhost',
        METRICS_PATH: 'off',
        NODE_HEAP_FLAGS: settings.heapFlags.join(' '),
        ...(process.env.BENCH_ABUSE_ENV ? JSON.parse(process.env.BENCH_ABUSE_ENV) : {}),
      },
      (line) => /listening at (http:\/\/\S+)/.exec(line)?.[1]?.replace('localhost', '127.0.0.1'),
    );
  const ready = simulator.customers.find((customer) => customer.username === 'ready@demo.test')!;
  const login = async (endpoint: string, { username, password } = ready) =>
    (await createOrderClient({ endpoint }).login(username, password)).accessToken;
  const probes: ProbeResult[] = [];
  // The floods of a hostile upstream's answers go to a stub of their own (test/helpers/hostile-upstream.ts).
  const hostile = await hostileUpstream();
  const run = async (name: string, what: string, flood: (endpoint: string) => Promise<string>, urls = simulator.urls) => {
    log(`memory under abuse: ${name}`);
    const { pid, value: endpoint } = await gateway(`abuse-${name}`, urls);
    probes.push({ name, what, ...(await peakDuring(pid, () => flood(endpoint))) });
    process.kill(pid, 'SIGKILL');
  };
  const only = process.env.BENCH_ABUSE_ONLY;
  const floods: [string, string, (endpoint: string) => Promise<string>, UpstreamUrls?][] = [
    [
      'document flood',
      'distinct documents without a token, 64 at once, half twice',
      (endpoint) => documentFlood(endpoint, settings.floodS),
    ],
    [
      'non-reading clients',
      '16 addresses × 256 connections, answers of up to 200 kB, none read',
      async (endpoint) =>
        nonReaders(endpoint, await Promise.all(simulator.customers.map((customer) => login(endpoint, customer))), settings.floodS),
    ],
    ['WebSocket flood', 'one socket, 3,000 whole orders at once', async (endpoint) => webSocketFlood(endpoint, await login(endpoint))],
    [
      'amplified estimate',
      'an estimate of 1 MB whose 10,000-character currency 30,000 fee lines would copy, two customers at once',
      async (endpoint) => {
        const { answers, other } = await amplifiedEstimate(endpoint);
        return `${JSON.stringify(tally(answers))}; another customer's whole order: ${JSON.stringify(tally([other]))}`;
      },
      hostile.urls,
    ],
    [
      'crowd of large fields',
      '20 addresses at once, 3 rounds, every upstream answer carrying a 1.9 MB field',
      async (endpoint) => {
        const { answers, other } = await crowdOfLargeFields(endpoint);
        return `${JSON.stringify(tally(answers))}; another customer's whole order: ${JSON.stringify(tally([other]))}`;
      },
      hostile.urls,
    ],
  ];
  for (const [name, what, flood, urls] of floods) if (!only || name.startsWith(only)) await run(name, what, flood, urls);
  await hostile.close();
  return { settings, probes };
}

/** The report's section. */
export function abuseMarkdown({ settings, probes }: AbuseResults): string[] {
  const bound = settings.limitMib * 1.048576 * 0.6;
  return [
    '## Memory under abuse',
    '',
    `A production gateway (the launcher, \`${settings.heapFlags.join(' ')}\`: the heap flags of the Deployment's ${settings.limitMib} Mi limit) per flood, each for about ${settings.floodS} s; the target is 60 % of the limit, ${bound.toFixed(0)} MB.`,
    '',
    '| flood | peak RSS | of the limit | what happened |',
    '|---|---|---|---|',
    ...probes.map(
      (probe) =>
        `| ${probe.name}: ${probe.what} | ${probe.peakRssMb.toFixed(0)} MB | ${((probe.peakRssMb / (settings.limitMib * 1.048576)) * 100).toFixed(0)} % | ${probe.outcome} |`,
    ),
    '',
  ];
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The settings: the Deployment's limit and the heap flags the launcher gives it (BENCH_ABUSE_S: each flood's length). */
export async function abuseSettings(): Promise<AbuseSettings> {
  const limitMib = Number(process.env.BENCH_ABUSE_LIMIT_MIB ?? deploymentMemoryLimit() / 2 ** 20);
  return { limitMib, heapFlags: heapFlags({}, limitMib * 2 ** 20, os.totalmem()), floodS: Number(process.env.BENCH_ABUSE_S ?? 20) };
}

// Alone (npm run bench:abuse): the simulator in this process, each gateway in its own; the section printed.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const simulator = await startSimulator({ latencyMs: 20 });
  const start: Start = (name, file, env, ready) => {
    const child = spawn(process.execPath, [file], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    return new Promise((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const value = ready(line);
        if (value !== undefined) resolve({ pid: child.pid!, value });
      });
      child.once('exit', (code) => reject(new Error(`${name} exited (${code})`)));
    });
  };
  const results = await measureAbuse(start, simulator, await abuseSettings(), (line) => console.error(line));
  console.log(abuseMarkdown(results).join('\n'));
  await simulator.close();
  process.exit(0);
}
