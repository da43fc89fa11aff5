#!/usr/bin/env node
// `order-graph` (in this repository `npm run -s order -- …`): where a customer's orders stand, then with --watch each change.
/**
 * Logs in to Order Graph and prints where the customer's orders stand, then with --watch one
 * line per change. The wording lives in summary.ts, the options in options.ts, the password's
 * sources in password.ts, the bounds on what is read in fetch.ts and what may reach a
 * terminal in terminal.ts; this file turns arguments into requests and outcomes into exit codes.
 */
import { createOrderClient, OrderClientError, type OrderClient, type OrderGraphError, type Tokens } from '../client/index.js';
import { ResponseTooLarge, boundedFetch, type LastResponse } from './fetch.js';
import { EXIT, Failure, parseOptions, USAGE, type Options } from './options.js';
import { readPassword } from './password.js';
import { blockingError, changeLine, DEFAULT_WIDTH, historyLines, summarize, toJson, type WatchedStatus } from './summary.js';
import { printable } from './terminal.js';

/** The whole command (login and query): a gateway that never answers must not hang a shell. */
const DEADLINE_MS = 30_000;
const MIB = 1024 * 1024;

/** The columns a --watch or --history line may take: the terminal's; on a pipe or in a file, COLUMNS when set, else 80. */
function lineWidth(): number {
  if (process.stdout.isTTY && process.stdout.columns > 0) return process.stdout.columns;
  const columns = Number(process.env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : DEFAULT_WIDTH;
}

/** The password once known, so no message ever quotes it. */
const secrets: string[] = [];

interface Writer {
  /** Output for the reader: the summary, the --watch lines, or JSON. */
  out(text: string): void;
  /** One line on stderr: "order: " and the text, made printable and free of the password. */
  line(text: string): void;
}

/** Text as it may go to stderr: nothing a terminal acts on, and "***" wherever the password was. */
function masked(text: string): string {
  let safe = text;
  for (const secret of secrets) safe = safe.replaceAll(secret, '***');
  safe = printable(safe);
  // A password hidden by control characters between its letters shows once they are gone.
  for (const secret of secrets.map(printable)) if (secret) safe = safe.replaceAll(secret, '***');
  return safe;
}

/** A server message for one stderr line: short, one line, and never the password. */
function oneLine(message: string): string {
  return masked(message).replace(/\s+/g, ' ').trim().slice(0, 200);
}

/** The endpoint as it may be shown: without any user:password@ part or query. */
function shown(endpoint: URL): string {
  return `${endpoint.origin}${endpoint.pathname}`;
}

/**
 * The SDK reports "no usable response" as one NETWORK_ERROR (or UNKNOWN when an HTTP error
 * carried no GraphQL errors). What the fetch underneath saw tells the customer which it was.
 */
function noResponse(where: string, deadline: AbortSignal, last: LastResponse): Failure {
  if (last.cut instanceof ResponseTooLarge) {
    return new Failure(
      EXIT.unavailable,
      `the response from Order Graph at ${where} is larger than ${last.cut.maxBytes / MIB} MiB, the most this command reads (--max-answer-mb); it was cut off`,
    );
  }
  if (deadline.aborted) return new Failure(EXIT.unavailable, `Order Graph at ${where} did not answer within ${DEADLINE_MS / 1000} s`);
  if (last.status >= 500) return new Failure(EXIT.unavailable, `Order Graph at ${where} is unavailable right now (HTTP ${last.status})`);
  if (last.status > 0) {
    const type = last.contentType ? `, ${last.contentType.split(';')[0]}` : '';
    return new Failure(EXIT.unavailable, `${where} did not answer as a GraphQL endpoint (HTTP ${last.status}${type}); check --endpoint`);
  }
  return new Failure(
    EXIT.unavailable,
    `cannot reach Order Graph at ${where}: is the gateway running (npm start), and is --endpoint right?`,
  );
}

async function run(argv: string[], env: NodeJS.ProcessEnv, write: Writer): Promise<number> {
  const options = parseOptions(argv, env);
  if (options === 'help') {
    write.out(USAGE);
    return EXIT.ok;
  }
  const password = await readPassword({
    argument: options.passwordArgument,
    env,
    username: options.username,
    input: process.stdin,
    output: process.stderr,
    warn: write.line,
  });
  secrets.push(password);
  const where = shown(options.endpoint);
  // From here on: the time a person takes to type the password is not the gateway's.
  const deadline = AbortSignal.timeout(DEADLINE_MS);
  const { fetch, last } = boundedFetch({ maxBytes: options.maxResponseBytes, signal: deadline });
  const failed = () => noResponse(where, deadline, last);

  const client = createOrderClient({ endpoint: options.endpoint.href, fetch });
  try {
    await client.login(options.username, password);
  } catch (error) {
    if (!(error instanceof OrderClientError)) throw error;
    throw loginFailure(error, failed);
  }

  if (options.history) {
    const orders = await showHistory(client, options.json, failed, write);
    return options.watch ? watch(options, client.tokens, orders, write) : EXIT.ok;
  }

  const result = await orFailed(client.wholeOrder(), failed);
  const blocking = blockingError(result);
  // --json hands over whatever arrived, errors included, even when the exit code says it failed.
  if (options.json) write.out(toJson(result));
  else if (!blocking) write.out(summarize(result));
  if (!blocking) return options.watch ? watch(options, client.tokens, result.data?.me?.orders ?? [], write) : EXIT.ok;
  throw notLoaded(result.data?.me ? 'your orders' : 'your order details', codeOf(blocking));
}

/** The client's own failure (no response at all) as the run's failure. */
async function orFailed<T>(loading: Promise<T>, failed: () => Failure): Promise<T> {
  try {
    return await loading;
  } catch (error) {
    if (error instanceof OrderClientError) throw failed();
    throw error;
  }
}

/** A response without what was asked for, by the code of its error: the session refused, or the service unavailable. */
function notLoaded(what: string, code: string): Failure {
  if (code === 'UNAUTHENTICATED' || code === 'FORBIDDEN')
    return new Failure(EXIT.auth, `the service refused your session while loading ${what} (${code}); log in again`);
  return new Failure(EXIT.unavailable, `${what} could not be loaded right now (${code}); try again later`);
}

/** --history: the orders' events, newest first (summary.ts words them); the orders, for --watch after it. */
async function showHistory(client: OrderClient, json: boolean, failed: () => Failure, write: Writer): Promise<readonly WatchedStatus[]> {
  const result = await orFailed(client.orderHistory(FIRST_PAGE), failed);
  const orders = result.data?.orders;
  if (!orders) throw notLoaded("your orders' history", codeOf(result.errors[0] ?? { message: '' }));
  const whole = await Promise.all(orders.map((order) => wholeHistory(client, order, failed)));
  write.out(historyLines(whole, json, lineWidth()));
  return orders;
}

/** The first page of each order's history asks for this many events (the SDK document's default); a full one may have more. */
const FIRST_PAGE = 20;
const PAGE = 100;
/** However many the gateway keeps (HISTORY_EVENTS_PER_ORDER), the command reads no more pages than this per order. */
const MAX_PAGES = 100;

type HistoryOrder = Parameters<typeof historyLines>[0][number];

/** An order with all of its history: its first page, then the older pages while they come full. */
async function wholeHistory(client: OrderClient, order: HistoryOrder, failed: () => Failure): Promise<HistoryOrder> {
  const history = [...order.history];
  let full = history.length === FIRST_PAGE;
  for (let page = 0; full && page < MAX_PAGES; page += 1) {
    const result = await orFailed(client.orderHistoryPage(order.id, { first: PAGE, after: history.at(-1)!.cursor }), failed);
    // An order gone since, or a page that failed: what was read is what is shown.
    const more = result.data?.order?.history ?? [];
    history.push(...more);
    full = more.length === PAGE;
  }
  return { ...order, history };
}

/**
 * The client --watch subscribes with: no overall deadline (it runs until Ctrl-C), but a
 * stream silent for --watch-timeout is cut (the SDK then subscribes again), and an update
 * larger than --max-answer-mb stops watching, since subscribing again would bring it again.
 */
function watchClient(options: Options, tokens: Tokens | null, stop: AbortController, write: Writer) {
  const cut = { tooLarge: null as ResponseTooLarge | null };
  const { fetch } = boundedFetch({
    maxBytes: options.maxResponseBytes,
    idleMs: options.watchTimeoutMs,
    onCut(why) {
      if (why instanceof ResponseTooLarge) {
        cut.tooLarge = why;
        stop.abort();
      } else {
        write.line(
          `no word from Order Graph for ${options.watchTimeoutMs / 1000} s (--watch-timeout): the stream is taken as broken; subscribing again`,
        );
      }
    },
  });
  return { client: createOrderClient({ endpoint: options.endpoint.href, tokens, fetch }), cut };
}

/**
 * --watch: one line per change until Ctrl-C (exit 0). The stream's own first events (the
 * state just summarised) print nothing; a status that moved while the stream was being
 * renewed prints as a change all the same.
 *
 * Ctrl-C reaches the command more than once: the terminal signals its whole process group,
 * and `npm run` passes the signal on to its script as well. The handlers stay for the rest of
 * the run, so a repeat finds one (without one, node would die of it, and npm would report
 * exit 130) and changes nothing: the first stops watching, and the command ends with 0. The
 * run ends with process.exit (see the end of this file), so a repeat that comes late still
 * finds them. (The `order` script execs node with tsx as a loader: a shell left in between
 * dies of the signal, and tsx's own launcher, given it twice, kills the command.)
 */
async function watch(options: Options, tokens: Tokens | null, orders: readonly WatchedStatus[], write: Writer): Promise<number> {
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop.abort());
  const { client, cut } = watchClient(options, tokens, stop, write);
  const known = new Map(orders.map((order) => [order.id, order]));
  write.line('watching your orders for changes (Ctrl-C to stop)');
  try {
    await follow(client, options, known, stop.signal, write);
  } catch (error) {
    if (!(error instanceof OrderClientError)) throw error;
    if (error.code === 'UNAUTHENTICATED') throw new Failure(EXIT.auth, 'your session ended and could not be renewed; log in again');
    throw new Failure(EXIT.unavailable, `watching stopped: ${oneLine(error.message)} (${error.code})`);
  }
  if (cut.tooLarge) {
    const limit = cut.tooLarge.maxBytes / MIB;
    throw new Failure(
      EXIT.unavailable,
      `an update from Order Graph at ${shown(options.endpoint)} is larger than ${limit} MiB, the most this command reads (--max-answer-mb); watching stopped`,
    );
  }
  return EXIT.ok;
}

async function follow(
  client: OrderClient,
  options: Options,
  known: Map<string, WatchedStatus>,
  signal: AbortSignal,
  write: Writer,
): Promise<void> {
  for await (const { data, errors } of client.watchOrders({ signal, minIntervalMs: options.watchIntervalMs })) {
    const update = data?.orderUpdates;
    if (!update) {
      write.line(`could not check for changes just now (${codeOf(errors[0] ?? { message: '' })}); still watching`);
      continue;
    }
    const line = changeLine(update, known.get(update.order.id), options.json, lineWidth());
    known.set(update.order.id, update.order);
    if (line) write.out(line);
  }
}

function codeOf(error: OrderGraphError): string {
  return error.extensions?.code ?? 'UNKNOWN_ERROR';
}

function loginFailure(error: OrderClientError, failed: () => Failure): Failure {
  switch (error.code) {
    case 'UNAUTHENTICATED':
      return new Failure(EXIT.auth, 'login refused: the username or password is not correct (UNAUTHENTICATED)');
    case 'FORBIDDEN':
    case 'BAD_USER_INPUT':
      return new Failure(EXIT.auth, `login refused: ${oneLine(error.message)} (${error.code})`);
    case 'RATE_LIMITED': {
      const after = error.errors[0]?.extensions?.retryAfterSeconds;
      return new Failure(
        EXIT.unavailable,
        `too many login attempts right now; try again ${after ? `in ${after} s` : 'later'} (RATE_LIMITED)`,
      );
    }
    case 'NETWORK_ERROR':
    case 'UNKNOWN':
      return failed();
    default:
      return new Failure(EXIT.unavailable, `Order Graph cannot log you in right now (${error.code}); try again later`);
  }
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
  const write: Writer = { out: (text) => process.stdout.write(text), line: (text) => process.stderr.write(`order: ${masked(text)}\n`) };
  const argument = passwordIn(process.argv.slice(2));
  if (argument) secrets.push(argument);
  try {
    process.exitCode = await run(process.argv.slice(2), process.env, write);
  } catch (error) {
    if (error instanceof Failure) {
      write.line(error.message);
      if (error.showUsage) process.stderr.write(`\n${USAGE}`);
      process.exitCode = error.exitCode;
      return;
    }
    // A bug: one line without the stack, and the password masked should the message quote it.
    write.line(`unexpected error: ${oneLine(error instanceof Error ? error.message : String(error))}`);
    process.exitCode = EXIT.bug;
  }
}

/** Resolves once everything written to the stream before has been handed to the system (or the stream has failed). */
const flushed = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write('', () => resolve()));

await main();
// Ended here, once the output is written, rather than when the event loop empties: node's own
// teardown puts the default action of SIGINT back before the process is gone, and a repeat of
// Ctrl-C arriving then (npm's, which comes late on a busy machine) would kill a command that
// had finished with 0, and npm would report 130.
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit();
