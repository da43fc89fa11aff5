// The CLI's command line: its usage text, its options and their defaults, exit codes, and the one-line failure.
import { parseArgs } from 'node:util';

export const DEFAULT_ENDPOINT = 'http://127.0.0.1:4000/graphql';

/** Scripts switch on these, so they are part of the command's interface. */
export const EXIT = { ok: 0, bug: 1, usage: 2, auth: 3, unavailable: 4, interrupted: 130 } as const;

/** The gateway's default LIVE_POLL_INTERVAL_MS, in seconds: subscribing again sooner gains nothing. */
const DEFAULT_WATCH_INTERVAL_S = 30;

/**
 * The gateway sends a keep-alive comment every 12 s on an idle stream: 45 s without a byte is
 * three missed keep-alives plus slack for a slow network, so only a stream that is really gone
 * (a proxy or NAT that dropped the connection without a word) is replaced.
 */
const DEFAULT_WATCH_TIMEOUT_S = 45;

/**
 * A whole order's response is a few KB per order and a change event less: 16 MiB is room for
 * thousands of orders, and small enough that a runaway or hostile response cannot take the
 * machine's memory (the CLI holds a response a few times over while parsing it).
 */
const DEFAULT_MAX_ANSWER_MIB = 16;
const MIB = 1024 * 1024;

export const USAGE = `Usage: order-graph --username <email> [--endpoint <url>] [--json] [--watch] [--history] [options]
       (in the Order Graph repository: npm run -s order -- <options>)

Logs in to Order Graph and shows where each of your vehicle orders stands: stage, vehicle,
pickup centre, amount due, payments and trade-in.

The password is taken from $ORDER_GRAPH_PASSWORD. Without it, it is asked for on the terminal
(nothing shows as you type), or read as one line from stdin when stdin is not a terminal:
  printf '%s\\n' "$PW" | order-graph --username <email>

Options:
  --username <email>     your login, e.g. ready@demo.test (npm start prints the demo logins)
  --endpoint <url>       the Order Graph GraphQL endpoint; default: $ORDER_GRAPH_ENDPOINT,
                         else ${DEFAULT_ENDPOINT} (the local gateway of npm start)
  --json                 print { "customer", "orders", "errors" } as JSON instead of the summary
                         (with --watch, then one JSON object per line for each change)
  --watch                keep watching after the summary: one line per change to an order,
                         until Ctrl-C
  --history              instead of the summary, what changed in your orders and when, as
                         the gateway observed it: one line per event, newest first, in the
                         same words as --watch's lines (with --json, one JSON object each)
  --watch-interval <s>   with --watch: the least time between two subscriptions when the
                         stream ends, in seconds; set it to the gateway's poll interval
                         (default ${DEFAULT_WATCH_INTERVAL_S}, the gateway's default)
  --watch-timeout <s>    with --watch: a stream that sends nothing for this long (no change and
                         no keep-alive; the gateway sends one every 12 s) is taken as broken and
                         replaced by a new subscription (default ${DEFAULT_WATCH_TIMEOUT_S})
  --max-answer-mb <MiB>  the largest response read, in MiB (with --watch, the largest single
                         update); a larger one is cut off and the command fails with exit 4
                         (default ${DEFAULT_MAX_ANSWER_MIB})
  --password <password>  the password on the command line: discouraged, since other users of
                         the machine see it (ps) and npm's debug log keeps it
  -h, --help             show this help

Exit codes: 0 ok, 2 bad arguments, 3 authentication failed, 4 service unavailable,
130 interrupted at the password prompt.
`;

/** A failure with its exit code and the one line that explains it. */
export class Failure extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
    readonly showUsage = false,
  ) {
    super(message);
  }
}

export interface Options {
  username: string;
  /** --password, when given (the environment and the prompt come later, in password.ts). */
  passwordArgument: string | undefined;
  endpoint: URL;
  json: boolean;
  watch: boolean;
  /** Print the orders' history instead of the summary. */
  history: boolean;
  /** The least time between two subscriptions of --watch. */
  watchIntervalMs: number;
  /** How long a --watch stream may send nothing before it is replaced. */
  watchTimeoutMs: number;
  /** The most bytes of one response (one update with --watch) read into memory. */
  maxResponseBytes: number;
}

const OPTIONS = {
  username: { type: 'string' },
  password: { type: 'string' },
  endpoint: { type: 'string' },
  json: { type: 'boolean', default: false },
  watch: { type: 'boolean', default: false },
  history: { type: 'boolean', default: false },
  'watch-interval': { type: 'string' },
  'watch-timeout': { type: 'string' },
  'max-answer-mb': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options | 'help' {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new Failure(EXIT.usage, argumentProblem(error), true);
  }
  if (values.help) return 'help';
  if (!values.username?.trim()) throw new Failure(EXIT.usage, 'missing --username', true);
  if (values.password === '') throw new Failure(EXIT.usage, '--password is empty', true);
  return {
    username: values.username.trim(),
    passwordArgument: values.password,
    endpoint: endpointOf(values.endpoint, env),
    json: values.json,
    watch: values.watch,
    history: values.history,
    watchIntervalMs: milliseconds('--watch-interval', values['watch-interval'], DEFAULT_WATCH_INTERVAL_S, 0.1),
    watchTimeoutMs: milliseconds('--watch-timeout', values['watch-timeout'], DEFAULT_WATCH_TIMEOUT_S, 1),
    maxResponseBytes: mebibytes(values['max-answer-mb']) * MIB,
  };
}

function endpointOf(option: string | undefined, env: NodeJS.ProcessEnv): URL {
  const raw = option ?? (env.ORDER_GRAPH_ENDPOINT || DEFAULT_ENDPOINT);
  const from = option !== undefined ? '--endpoint' : env.ORDER_GRAPH_ENDPOINT ? 'ORDER_GRAPH_ENDPOINT' : 'the default endpoint';
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
  return endpoint;
}

/** An option given in seconds (from `least` to a day), in ms. */
function milliseconds(name: string, value: string | undefined, fallbackSeconds: number, least: number): number {
  if (value === undefined) return fallbackSeconds * 1000;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || seconds < least || seconds > 86_400)
    throw new Failure(EXIT.usage, `${name} must be a number of seconds from ${least} to 86400`, true);
  return Math.round(seconds * 1000);
}

/** --max-answer-mb: a whole number of MiB from 1 to 1024. */
function mebibytes(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MAX_ANSWER_MIB;
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || number < 1 || number > 1024)
    throw new Failure(EXIT.usage, '--max-answer-mb must be a whole number of MiB from 1 to 1024', true);
  return number;
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
      return 'unexpected argument: every value needs its option name before it (e.g. --endpoint <url>)';
    default:
      return message.split('\n')[0] ?? 'bad arguments';
  }
}
