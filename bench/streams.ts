/**
 * The streamed answers, measured with the SDK against their own simulator (50 ms per upstream
 * call, as the issue that asked for them set it) and gateway processes:
 * - @defer: WholeOrderDeferred's time to its first payload and to its last, beside WholeOrder's
 *   whole answer, one request at a time;
 * - live updates: 50 subscribers of one customer for a window (a minute by default), the
 *   gateway at its default poll interval: the upstream polls they cost, against one per
 *   subscriber per interval had each polled on its own.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createOrderClient } from '../src/client/index.js';
import { HOSTS, type UpstreamUrls } from '../src/upstream/contract.js';

export interface StreamSettings {
  latencyMs: number;
  deferredRuns: number;
  subscribers: number;
  liveWindowS: number;
}

/** A benchmarked gateway's environment over these upstream URLs: production, on a free local port, quiet. */
export const benchGatewayEnv = (urls: UpstreamUrls) => ({
  ...Object.fromEntries(HOSTS.map((name) => [name, urls[name]])),
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  GRAPHIQL: 'off',
  NODE_ENV: 'production',
  ALLOWED_HOSTS: 'localhost',
});

/** A started server's URL, read from its banner. */
export const listening = (line: string) => /listening at (http:\/\/\S+)/.exec(line)?.[1];

/** Starts a compiled server as its own process: its pid, and what `ready` read from its output. */
export type Start = <T>(
  name: string,
  file: string,
  env: Record<string, string>,
  ready: (line: string) => T | undefined,
) => Promise<{ pid: number; value: T }>;

export interface StreamResults {
  settings: StreamSettings;
  deferred: { firstPayloadMs: number; lastPayloadMs: number; wholeOrderMs: number; payloads: number };
  live: { subscribers: number; windowS: number; pollIntervalMs: number; polls: number; verifications: number; pollsIfEachPolled: number };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const DEFAULT_POLL_INTERVAL_MS = 30_000;

export async function measureStreams(start: Start, settings: StreamSettings, log: (line: string) => void): Promise<StreamResults> {
  const simulator = await start(
    'streams-simulator',
    'dist/src/simulator/main.js',
    { SIM_PORT: '0', SIM_LATENCY_MS: String(settings.latencyMs), SIM_JITTER_MS: '0' },
    (line) =>
      line.startsWith('{') ? (JSON.parse(line) as { urls: UpstreamUrls; customers: { username: string; password: string }[] }) : undefined,
  );
  const { urls, customers } = simulator.value;
  const gateway = await start(
    'streams-gateway',
    'dist/src/tools/start.mjs', // as production starts it: the launcher and its heap flags
    { ...benchGatewayEnv(urls), METRICS_PATH: 'off' },
    listening,
  );
  const ready = customers.find((c) => c.username === 'ready@demo.test')!;
  const client = createOrderClient({ endpoint: gateway.value });
  await client.login(ready.username, ready.password);

  log(
    `@defer: ${settings.deferredRuns} WholeOrderDeferred and ${settings.deferredRuns} WholeOrder, one at a time, simulator at ${settings.latencyMs} ms`,
  );
  const first: number[] = [];
  const last: number[] = [];
  const whole: number[] = [];
  let payloads = 0;
  for (let run = 0; run < settings.deferredRuns; run++) {
    const startedAt = performance.now();
    payloads = 0;
    for await (const result of client.wholeOrderDeferred()) {
      if (result.errors.length > 0) throw new Error(`WholeOrderDeferred answered errors: ${JSON.stringify(result.errors)}`);
      if (payloads++ === 0) first.push(performance.now() - startedAt);
    }
    last.push(performance.now() - startedAt);
    const wholeStartedAt = performance.now();
    const { errors } = await client.wholeOrder();
    if (errors.length > 0) throw new Error(`WholeOrder answered errors: ${JSON.stringify(errors)}`);
    whole.push(performance.now() - wholeStartedAt);
  }

  log(
    `live updates: ${settings.subscribers} subscribers of one customer for ${settings.liveWindowS} s, polling every ${DEFAULT_POLL_INTERVAL_MS / 1000} s`,
  );
  const stats = `${new URL(urls.AUTH_URL).origin}/__simulator/stats`;
  await fetch(`${stats}/reset`, { method: 'POST' });
  const stop = new AbortController();
  let firstEvents = 0;
  const watching = Array.from({ length: settings.subscribers }, async () => {
    for await (const event of client.watchOrders({ signal: stop.signal })) if (event.data?.orderUpdates.changes.length === 0) firstEvents++;
  });
  await sleep(settings.liveWindowS * 1000);
  stop.abort();
  await Promise.all(watching);
  const { operations } = (await (await fetch(stats)).json()) as { operations: Record<string, number> };
  if (firstEvents < settings.subscribers)
    throw new Error(`only ${firstEvents} of ${settings.subscribers} subscribers had the current state`);

  return {
    settings,
    deferred: { firstPayloadMs: median(first), lastPayloadMs: median(last), wholeOrderMs: median(whole), payloads },
    live: {
      subscribers: settings.subscribers,
      windowS: settings.liveWindowS,
      pollIntervalMs: DEFAULT_POLL_INTERVAL_MS,
      polls: operations.orderDetails ?? 0,
      verifications: operations.customerDetails ?? 0,
      // Each subscriber polling on its own at the same cadence: on subscribing, then every interval within the window.
      pollsIfEachPolled: settings.subscribers * Math.ceil((settings.liveWindowS * 1000) / DEFAULT_POLL_INTERVAL_MS),
    },
  };
}

/** The report's section. */
export function streamsMarkdown({ settings, deferred, live }: StreamResults): string[] {
  const ms = (value: number) => value.toFixed(1);
  return [
    '## Streamed answers',
    '',
    `Their own simulator (${settings.latencyMs} ms per upstream call) and gateway (defaults, \`NODE_ENV=production\`, started by the launcher), driven with the SDK.`,
    '',
    `**@defer** (medians of ${settings.deferredRuns} requests, one at a time): WholeOrderDeferred's first payload (customer and order list) after`,
    `**${ms(deferred.firstPayloadMs)} ms**, its last after ${ms(deferred.lastPayloadMs)} ms (${deferred.payloads} payloads); WholeOrder's whole answer after`,
    `${ms(deferred.wholeOrderMs)} ms. The first payload comes ${ms(deferred.wholeOrderMs - deferred.firstPayloadMs)} ms (one upstream wave) sooner.`,
    '',
    `**Live updates**: ${live.subscribers} subscribers of one customer for ${live.windowS} s (poll every ${live.pollIntervalMs / 1000} s): **${live.polls} upstream polls**`,
    `(\`orderDetails\`) and ${live.verifications} token checks (\`customerDetails\`, one per subscriber on subscribing); ${live.pollsIfEachPolled} polls had each`,
    'subscriber polled on its own.',
    '',
  ];
}
