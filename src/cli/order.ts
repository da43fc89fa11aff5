#!/usr/bin/env node
/**
 * `order-graph --username U --password P [--endpoint URL] [--json] [--watch [--watch-interval S]]` (in this
 * repository `npm run -s order -- …`): logs in to Order Graph and prints where the
 * customer's orders stand, then with --watch one line per change. The wording lives in
 * summary.ts; this file turns arguments into requests and outcomes into exit codes.
 */
import { parseArgs } from 'node:util';
import { createOrderClient, OrderClientError, type OrderGraphError } from '../client/index.js';
import { blockingError, changeLine, summarize, toJson, type WatchedStatus } from './summary.js';

const DEFAULT_ENDPOINT = 'http://127.0.0.1:4000/graphql';

/** Scripts switch on these, so they are part of the command's interface. */
const EXIT = { ok: 0, bug: 1, usage: 2, auth: 3, unavailable: 4 } as const;

/** The whole command (login and query): a gateway that never answers must not hang a shell. */
const DEADLINE_MS = 30_000;

/** The gateway's default LIVE_POLL_INTERVAL_MS, in seconds: subscribing again sooner gains nothing. */
const DEFAULT_WATCH_INTERVAL_S = 30;

const USAGE = `Usage: order-graph --username <email> --password <password> [--endpoint <url>] [--json] [--watch]
       (in the Order Graph repository: npm run -s order -- <options>)

Logs in to Order Graph and shows where each of your vehicle orders stands: stage, vehicle,
pickup centre, amount due, payments and trade-in.

Options:
  --username <email>     your login, e.g. ready@demo.test (npm start prints the demo logins)
  --password <password>  your password
  --endpoint <url>       the Order Graph GraphQL endpoint; default: $ORDER_GRAPH_ENDPOINT,
                         else ${DEFAULT_ENDPOINT} (the local gateway of npm start)
  --json                 print { "customer", "orders", "errors" } as JSON instead of the summary
                         (with --watch, then one JSON object per line for each change)
  --watch                keep watching after the summary: one line per change to an order,
                         until Ctrl-C
  --watch-interval <s>   with --watch: the least time between two subscriptions when the
                         stream ends, in seconds; set it to the gateway's poll interval
                         (default ${DEFAULT_WATCH_INTERVAL_S}, the gateway's default)
  -h, --help             show this help

Exit codes: 0 ok, 2 bad arguments, 3 authentication failed, 4 service unavailable.
`;

/** A failure with its exit code and the one line that explains it. */
class Failure extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
    readonly showUsage = false,
  ) {
    super(message);
  }
}

interface Options {
  username: string;
  password: string;
  endpoint: URL;
  json: boolean;
  watch: boolean;
  /** The least time between two subscriptions of --watch. */
  watchIntervalMs: number;
}

const OPTIONS = {
  username: { type: 'string' },
  password: { type: 'string' },
  endpoint: { type: 'string' },
  json: { type: 'boolean', default: false },
  watch: { type: 'boolean', default: false },
  'watch-interval': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options | 'help' {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new Failure(EXIT.usage, argumentProblem(error), true);
  }
  if (values.help) return 'help';
  if (!values.username?.trim()) throw new Failure(EXIT.usage, 'missing --username', true);
  if (!values.password) throw new Failure(EXIT.usage, 'missing --password', true);
  const raw = values.endpoint ?? (env.ORDER_GRAPH_ENDPOINT || DEFAULT_ENDPOINT);
  const from = values.endpoint !== undefined ? '--endpoint' : env.ORDER_GRAPH_ENDPOINT ? 'ORDER_GRAPH_ENDPOINT' : 'the default endpoint';
  let endpoint: URL;
  try {
    endpoint = new URL(raw);
  } catch {
    throw new Failure(EXIT.usage, `${from} is not a URL: expected e.g. ${DEFAULT_ENDPOINT}`, true);
  }
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') {
    throw new Failure(EXIT.usage, `${from} must be an http:// or https:// URL`, true);
  }
  // fetch refuses such URLs, and a password there would end up in messages.
  if (endpoint.username || endpoint.password) throw new Failure(EXIT.usage, `${from} must not contain a user:password@ part`, true);
  return { username: values.username.trim(), password: values.password, endpoint, json: values.json, watch: values.watch, watchIntervalMs: watchInterval(values['watch-interval']) };
}

/** --watch-interval in ms: seconds from 0.1 to a day. */
function watchInterval(value: string | undefined): number {
  if (value === undefined) return DEFAULT_WATCH_INTERVAL_S * 1000;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || seconds < 0.1 || seconds > 86_400) throw new Failure(EXIT.usage, '--watch-interval must be a number of seconds from 0.1 to 86400', true);
  return Math.round(seconds * 1000);
}

/**
 * parseArgs's own message for a stray positional quotes the argument, and a stray
 * argument is often a password whose option name was mistyped: say it without the value.
 */
function argumentProblem(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const option = /'(-[^'=\s]*)/.exec(message)?.[1];
      return option ? `unknown option ${option}` : 'unknown option';
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return 'unexpected argument: every value needs its option name before it (e.g. --password <password>)';
    default:
      return message.split('\n')[0] ?? 'bad arguments';
  }
}

/** The endpoint as it may be shown: without any user:password@ part or query. */
function shown(endpoint: URL): string {
  return `${endpoint.origin}${endpoint.pathname}`;
}

/**
 * The SDK reports "no usable answer" as one NETWORK_ERROR (or UNKNOWN when an HTTP error
 * carried no GraphQL errors). What the fetch underneath saw tells the customer which it was.
 */
function instrumentedFetch(deadline: AbortSignal) {
  const seen: { status: number; contentType: string } = { status: 0, contentType: '' };
  const fetchWithDeadline: typeof fetch = async (input, init) => {
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    // Only this request's answer explains its failure, not the login's before it.
    seen.status = 0;
    seen.contentType = '';
    const response = await fetch(input, { ...init, signal });
    seen.status = response.status;
    seen.contentType = response.headers.get('content-type') ?? '';
    return response;
  };
  return { fetch: fetchWithDeadline, seen };
}

interface Writer {
  out(text: string): void;
  err(text: string): void;
}

async function run(argv: string[], env: NodeJS.ProcessEnv, write: Writer): Promise<number> {
  const options = parseOptions(argv, env);
  if (options === 'help') {
    write.out(USAGE);
    return EXIT.ok;
  }
  const where = shown(options.endpoint);
  const deadline = AbortSignal.timeout(DEADLINE_MS);
  const { fetch, seen } = instrumentedFetch(deadline);

  const noAnswer = (): Failure => {
    if (deadline.aborted) return new Failure(EXIT.unavailable, `Order Graph at ${where} did not answer within ${DEADLINE_MS / 1000} s`);
    if (seen.status >= 500) return new Failure(EXIT.unavailable, `Order Graph at ${where} is unavailable right now (HTTP ${seen.status})`);
    if (seen.status > 0) {
      return new Failure(
        EXIT.unavailable,
        `${where} did not answer as a GraphQL endpoint (HTTP ${seen.status}${seen.contentType ? `, ${seen.contentType.split(';')[0]}` : ''}); check --endpoint`,
      );
    }
    return new Failure(EXIT.unavailable, `cannot reach Order Graph at ${where}: is the gateway running (npm start), and is --endpoint right?`);
  };

  const client = createOrderClient({ endpoint: options.endpoint.href, fetch });
  try {
    await client.login(options.username, options.password);
  } catch (error) {
    if (!(error instanceof OrderClientError)) throw error;
    throw loginFailure(error, options.password, noAnswer);
  }

  let result;
  try {
    result = await client.wholeOrder();
  } catch (error) {
    if (error instanceof OrderClientError) throw noAnswer();
    throw error;
  }

  const blocking = blockingError(result);
  // --json hands over whatever arrived, errors included, even when the exit code says it failed.
  if (options.json) write.out(toJson(result));
  else if (!blocking) write.out(summarize(result));
  if (!blocking) {
    if (!options.watch) return EXIT.ok;
    const orders = result.data?.me?.orders ?? [];
    return watch(options, createOrderClient({ endpoint: options.endpoint.href, tokens: client.tokens }), orders, write);
  }
  const code = codeOf(blocking);
  const what = result.data?.me ? 'your orders' : 'your order details';
  if (code === 'UNAUTHENTICATED' || code === 'FORBIDDEN') {
    throw new Failure(EXIT.auth, `the service refused your session while loading ${what} (${code}); log in again`);
  }
  throw new Failure(EXIT.unavailable, `${what} could not be loaded right now (${code}); try again later`);
}

/**
 * --watch: one line per change until Ctrl-C (exit 0). The stream's own first events (the
 * state just summarised) print nothing; a status that moved while the stream was being
 * renewed prints as a change all the same.
 */
async function watch(options: Options, client: ReturnType<typeof createOrderClient>, orders: readonly WatchedStatus[], write: Writer): Promise<number> {
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const known = new Map(orders.map((order) => [order.id, order]));
  write.err(`order: watching your orders for changes (Ctrl-C to stop)\n`);
  try {
    for await (const { data, errors } of client.watchOrders({ signal: stop.signal, minIntervalMs: options.watchIntervalMs })) {
      const update = data?.orderUpdates;
      if (!update) {
        write.err(`order: could not check for changes just now (${codeOf(errors[0] ?? { message: '' })}); still watching\n`);
        continue;
      }
      const line = changeLine(update, known.get(update.order.id), options.json);
      known.set(update.order.id, update.order);
      if (line) write.out(line);
    }
  } catch (error) {
    if (!(error instanceof OrderClientError)) throw error;
    if (error.code === 'UNAUTHENTICATED') throw new Failure(EXIT.auth, 'your session ended and could not be renewed; log in again');
    throw new Failure(EXIT.unavailable, `watching stopped: ${oneLine(error.message, options.password)} (${error.code})`);
  }
  return EXIT.ok;
}

function codeOf(error: OrderGraphError): string {
  return error.extensions?.code ?? 'UNKNOWN_ERROR';
}

function loginFailure(error: OrderClientError, password: string, noAnswer: () => Failure): Failure {
  switch (error.code) {
    case 'UNAUTHENTICATED':
      return new Failure(EXIT.auth, 'login refused: the username or password is not correct (UNAUTHENTICATED)');
    case 'FORBIDDEN':
    case 'BAD_USER_INPUT':
      return new Failure(EXIT.auth, `login refused: ${oneLine(error.message, password)} (${error.code})`);
    case 'RATE_LIMITED': {
      const after = error.errors[0]?.extensions?.retryAfterSeconds;
      return new Failure(EXIT.unavailable, `too many login attempts right now; try again ${after ? `in ${after} s` : 'later'} (RATE_LIMITED)`);
    }
    case 'NETWORK_ERROR':
    case 'UNKNOWN':
      return noAnswer();
    default:
      return new Failure(EXIT.unavailable, `Order Graph cannot log you in right now (${error.code}); try again later`);
  }
}

/** A server message made safe for one stderr line: one line, short, and never the password. */
function oneLine(message: string, password: string | undefined): string {
  return (password ? message.replaceAll(password, '***') : message).replace(/\s+/g, ' ').trim().slice(0, 200);
}

/** The --password value, read without parseArgs since it may be what failed. */
function passwordIn(argv: string[]): string | undefined {
  const at = argv.findIndex((arg) => arg === '--password' || arg.startsWith('--password='));
  const arg = argv[at];
  if (arg === undefined) return undefined;
  return arg.includes('=') ? arg.slice('--password='.length) : argv[at + 1];
}

async function main(): Promise<void> {
  // A reader that stops early (| head) is not a failure of this command.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  try {
    process.exitCode = await run(process.argv.slice(2), process.env, { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) });
  } catch (error) {
    if (error instanceof Failure) {
      process.stderr.write(`order: ${error.message}\n${error.showUsage ? `\n${USAGE}` : ''}`);
      process.exitCode = error.exitCode;
      return;
    }
    // A bug: one line without the stack, and the password masked should the message quote it.
    const password = passwordIn(process.argv.slice(2));
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`order: unexpected error: ${oneLine(message, password)}\n`);
    process.exitCode = EXIT.bug;
  }
}

await main();
