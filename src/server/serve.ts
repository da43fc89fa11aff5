// Starts the gateway: config → embedded simulator if asked for → listen → banner → drain on a signal.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createGateway } from './gateway.js';
import { checkFileHandleLimit, createHttpServer } from './http-server.js';
import { MAX_UPSTREAM_SOCKETS } from '../upstream/http.js';
import { createLogger, logDestination } from './logger.js';
import { HEALTH_PATH, READY_PATH } from './health.js';
import type { Simulator } from '../simulator/server.js';
import { builtTrackerFolder, TRACKER_PATH } from './tracker.js';

function readConfig() {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const problem of error.problems) console.error(`config: ${problem}`);
    process.exit(1);
  }
}

/** Why the server could not listen, as one line naming the setting to change; undefined for what is not the setting's fault. */
function listenProblem(error: NodeJS.ErrnoException, port: number, host: string): string | undefined {
  switch (error.code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is already in use: stop what listens there, or set PORT to another port (PORT=0 picks a free one)`;
    case 'EACCES':
    case 'EPERM':
      return `not permitted to listen on port ${port} (ports below 1024 need privileges): set PORT to 1024 or above`;
    case 'EADDRNOTAVAIL':
      return `HOST ${host} is not an address of this machine: set HOST to one of its addresses (0.0.0.0 for all of them)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return `HOST ${host} could not be resolved: set HOST to an address or a name this machine resolves`;
  }
  return undefined;
}

function trackerLine(origin: string, tracker: boolean): string {
  if (!tracker) return 'Order tracker is off (TRACKER=on turns it on).';
  return builtTrackerFolder()
    ? `Order tracker: open ${origin}${TRACKER_PATH} in a browser.`
    : 'Order tracker: not built (npm run build builds it; npm run tracker:dev serves it from its sources, with hot reload).';
}

/** A webhook receiver for the demo, with nothing but Node.js: prints each POST's id and body, and answers 204. */
export const DEMO_WEBHOOK_RECEIVER = `node -e "http.createServer((q,s)=>{let b='';q.on('data',d=>b+=d).on('end',()=>{console.log(q.headers['webhook-id'],b);s.writeHead(204).end()})}).listen(9000)"`;

/** How to try each channel in npm start's demo (notifications on, with keys made at start). */
function notificationLines(notify: Config['notify'], moving: NonNullable<Simulator['moving']>, tracker: boolean): string[] {
  if (!notify?.demo) return [];
  const where = tracker ? 'on the order tracker' : 'in GraphiQL (the add…Target mutations)';
  return [
    '',
    `Notifications (demo: keys made at start, lost on restart; the orders read every ${notify.pollIntervalMs / 1000} s): sign in ${where} as ${moving.username}, then`,
    '  Web Push: press Notify me and allow; close the page, move the order: the browser shows the message.',
    "  E-mail:   to the account's own address; with no SMTP_URL each mail is printed here.",
    ...(notify.allowPrivateAddresses
      ? [
          `  Webhook:  in another terminal, a receiver that prints each POST: ${DEMO_WEBHOOK_RECEIVER}`,
          '            then add http://127.0.0.1:9000/hook (its signing secret is shown once).',
        ]
      : ['  Webhook:  add an https URL of a receiver of yours: each POST is signed with the secret shown once.']),
    '  Send test on a target, or move the order (the curl above): a message within one read.',
  ];
}

function banner(
  url: string,
  pages: { graphiql: boolean; tracker: boolean },
  simulator: Simulator | undefined,
  upstream: string[],
  notify: Config['notify'],
): string {
  const { graphiql } = pages;
  const lines = [`Order Graph is listening at ${url}`];
  lines.push(graphiql ? `GraphiQL: open ${url} in a browser.` : 'GraphiQL is off (GRAPHIQL=on turns it on).');
  lines.push(trackerLine(new URL(url).origin, pages.tracker));
  if (simulator) {
    lines.push('', 'No upstream URLs set: serving the embedded simulator. Demo logins:');
    for (const customer of simulator.customers) {
      lines.push(`  ${customer.username.padEnd(28)} ${customer.password.padEnd(20)} ${customer.description}`);
    }
    if (graphiql) lines.push('', 'In GraphiQL: press Sign in (a demo customer is chosen), then run the WholeOrder tab.');
    if (simulator.moving)
      lines.push(
        '',
        `${simulator.moving.username}'s order takes its next stage every ${simulator.moving.everyMs / 1000} s: watch it in the OrderUpdates tab or the order tracker (signed in as that customer) or with the CLI's --watch.`,
        `  To move it now: curl -X POST ${simulator.moving.advanceUrl}`,
        ...notificationLines(notify, simulator.moving, pages.tracker),
      );
  } else {
    lines.push(`Upstream: ${upstream.join(', ')}`);
  }
  return lines.join('\n');
}

const config = readConfig();
const logger = createLogger(
  config.logLevel,
  await logDestination({ production: config.production, terminal: Boolean(process.stdout.isTTY) }),
);

// Loaded only when it is needed: a gateway in front of the real service never carries it.
const simulating = config.upstreamUrls ? undefined : await import('../simulator/server.js');
const simulator = await simulating?.startSimulator({ host: '127.0.0.1', advanceEveryMs: simulating.DEMO_ADVANCE_EVERY_MS });
const upstreamUrls = config.upstreamUrls ?? simulator!.urls;
// GraphiQL's sign-in bar offers the demo customers, the one with every part of an order first.
const demoLogins = simulator && simulating?.offeredDemoLogins(simulator.customers);
// Tracing's modules load only when it is configured: off, it costs nothing.
const tracing = config.tracing
  ? (await import('../observability/tracing.js')).startTracing(config.tracing, [
      HEALTH_PATH,
      READY_PATH,
      ...(config.metricsPath ? [config.metricsPath] : []),
    ])
  : undefined;
const gateway = createGateway({ ...config, upstreamUrls, logger, tracing, demoLogins });
const http = createHttpServer(gateway.yoga, { ...config, logger, onCut: gateway.onConnectionCut, onUpgrade: gateway.onUpgrade });

/**
 * One full, compacting collection once everything is built, before listening. Start-up keeps
 * about 30 MB, which grows V8's young generation to its largest (two 16 MB semi-spaces under
 * the launcher's flags); V8 shrinks it again only in a collection at a low allocation rate, and
 * an idle process makes no collection at all (its memory reducer, seeing no allocation, never
 * starts one). Without this the gateway idles with 32 MB of empty young generation for good;
 * under load the young generation grows back as the requests need it. Only the memory-reducing
 * ('last-resort') flavor shrinks it; a regular major collection leaves it as it is. `gc` is
 * exposed to one new context only, for this call.
 */
function collectStartupGarbage() {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
  setFlagsFromString('--no-expose-gc');
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/** The same signal can come twice at once (to the process group, and forwarded by npm): only a later one means "stop now". */
const REPEAT_AFTER_MS = 1000;

let stoppingSince: number | null = null;
async function stop(signal: NodeJS.Signals) {
  if (stoppingSince !== null) {
    if (Date.now() - stoppingSince < REPEAT_AFTER_MS) return;
    // A second request to stop: no more waiting for in-flight requests or streams.
    logger.warn({ signal }, 'stopping now: closing every connection');
    http.server.closeAllConnections();
    process.exit(1);
  }
  stoppingSince = Date.now();
  logger.info({ signal }, 'shutting down: readiness off, no new connections, finishing in-flight requests');
  await gateway.drain();
  await http.drain(config.shutdownGraceMs);
  await gateway.close();
  await Promise.all([simulator?.close(), tracing?.shutdown()]);
  logger.info({ ms: Date.now() - stoppingSince }, 'stopped');
  process.exit(0);
}
// Before listening and before the banner: whoever sees the banner may stop it, and is heard.
process.on('SIGTERM', (signal) => void stop(signal));
process.on('SIGINT', (signal) => void stop(signal));

checkFileHandleLimit(config.maxConnections, MAX_UPSTREAM_SOCKETS, logger);
collectStartupGarbage();
const port = await http.listen(config.port, config.host).catch(async (error: NodeJS.ErrnoException) => {
  const problem = listenProblem(error, config.port, config.host);
  if (!problem) throw error;
  console.error(`Order Graph could not start: ${problem}.`);
  await Promise.all([gateway.close(), simulator?.close(), tracing?.shutdown()]);
  process.exit(1);
});

const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/graphql`;
console.log(
  banner(
    url,
    { graphiql: config.graphiql, tracker: config.tracker },
    simulator,
    Object.values(upstreamUrls).map((u) => new URL(u).origin),
    config.notify,
  ),
);
