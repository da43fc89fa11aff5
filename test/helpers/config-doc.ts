// docs/configuration.md, written from the settings schema (envSchema in src/server/config.ts, its settings described in src/server/config/):
// each variable with its default, the values it takes and its description. `npm run
// docs:config` writes the page; test/unit/config-doc.test.ts fails when the committed page is
// not what this writes. It lives beside the tests because src/tools may not import the server.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { envSchema } from '../../src/server/config.js';

export const CONFIG_PAGE = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));

interface Section {
  title: string;
  intro: string;
  variables: readonly string[];
}

/** The page's sections, in order: every setting in exactly one. */
const SECTIONS: readonly Section[] = [
  {
    title: 'Where it listens, and the upstream',
    intro:
      'Where the gateway listens, and what answers for the REST service: the real one ([production.md](production.md#pointing-it-at-the-real-service)) or the embedded simulator.',
    variables: [
      'PORT',
      'HOST',
      'AUTH_URL',
      'APPOINTMENT_URL',
      'ORDER_URL',
      'PRICE_CALCULATOR_URL',
      'TRADE_IN_URL',
      'SIMULATOR',
      'NODE_ENV',
    ],
  },
  {
    title: 'Upstream calls',
    intro:
      "Each request's calls to the REST service: how long they may take, retries, the request's budget of calls ([limits.md](limits.md#upstream-budgets)), and the bytes a request, and all of them together, may hold ([limits.md](limits.md#what-requests-hold-in-bytes)).",
    variables: [
      'UPSTREAM_CLIENT',
      'UPSTREAM_TIMEOUT_MS',
      'REQUEST_DEADLINE_MS',
      'UPSTREAM_RETRIES',
      'UPSTREAM_CALLS_PER_REQUEST',
      'UPSTREAM_CONCURRENCY_PER_REQUEST',
      'REQUEST_BYTES',
      'IN_FLIGHT_BYTES',
    ],
  },
  {
    title: 'Callers and logins',
    intro:
      'What one caller may hold at once, and how failed logins and refreshes are slowed down ([limits.md](limits.md#why-these-login-rules) says why these rules).',
    variables: [
      'CALLER_OPERATIONS_IN_FLIGHT',
      'CALLER_UPSTREAM_CALLS_IN_FLIGHT',
      'LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS',
      'LOGIN_FAILURE_DELAY_S',
      'LOGIN_FAILURES_PER_ADDRESS',
      'LOGIN_FAILURES_PER_USERNAME',
      'REFRESH_FAILURES_PER_ADDRESS',
    ],
  },
  {
    title: 'Connections',
    intro: 'Client connections: the proxies in front, timeouts, caps, readers that stop reading, and how a stop goes.',
    variables: [
      'TRUSTED_PROXIES',
      'HEADERS_TIMEOUT_MS',
      'REQUEST_TIMEOUT_MS',
      'KEEP_ALIVE_TIMEOUT_MS',
      'MAX_CONNECTIONS',
      'MAX_CONNECTIONS_PER_ADDRESS',
      'SLOW_READER_BYTES',
      'SLOW_READER_TIMEOUT_MS',
      'SLOW_READER_BYTES_PER_ADDRESS',
      'WEBSOCKET_IDLE_TIMEOUT_MS',
      'SHUTDOWN_GRACE_MS',
    ],
  },
  {
    title: 'Pages, documents and browsers',
    intro:
      'Which pages and documents are served, and to which hosts and origins ([SECURITY.md](../SECURITY.md) says why; [sdk.md](sdk.md#trusted-documents) has the trusted documents, [querying.md](querying.md#federation) the subgraph).',
    variables: [
      'ALLOWED_HOSTS',
      'CORS_ORIGINS',
      'GRAPHIQL',
      'TRACKER',
      'INTROSPECTION',
      'TRUSTED_DOCUMENTS',
      'DOCUMENT_CACHE_BYTES',
      'SUBGRAPH',
    ],
  },
  {
    title: 'Live updates',
    intro: 'The `orderUpdates` subscription ([live-updates.md](live-updates.md)).',
    variables: ['LIVE_POLL_INTERVAL_MS', 'LIVE_STREAMS_PER_CUSTOMER', 'LIVE_STREAMS_PER_ADDRESS', 'LIVE_SNAPSHOT_BYTES'],
  },
  {
    title: 'Order history',
    intro: 'What the gateway keeps of each order it reads ([live-updates.md](live-updates.md#order-history)).',
    variables: ['HISTORY', 'HISTORY_EVENTS_PER_ORDER', 'HISTORY_MAX_AGE_DAYS', 'HISTORY_CUSTOMER_BYTES', 'HISTORY_BYTES'],
  },
  {
    title: "The vehicle's codes",
    intro:
      'The words shown beside the model, trim, exterior, interior and wheel codes (the `…Label` fields of `Vehicle`, `Product` and `Configuration`).',
    variables: ['CODE_LABELS_FILE'],
  },
  {
    title: 'Notifications',
    intro:
      "A message when an order moves, with no page open ([notifications.md](notifications.md)): on with `NOTIFY_TOKEN_KEYS` (or in front of the embedded simulator), each customer's limits, and the channels. The secrets (`NOTIFY_TOKEN_KEYS`, `VAPID_PRIVATE_KEY`, `SMTP_URL`) belong in a Secret (deploy/kubernetes/secret.yaml), never in the ConfigMap.",
    variables: [
      'NOTIFY_TOKEN_KEYS',
      'NOTIFY_POLL_INTERVAL_MS',
      'NOTIFY_TARGETS_PER_CUSTOMER',
      'NOTIFY_MESSAGES_PER_HOUR',
      'NOTIFY_DISABLE_AFTER_MS',
      'NOTIFY_CUSTOMERS',
      'NOTIFY_RECORD_BYTES',
      'NOTIFY_BYTES',
      'NOTIFY_QUEUE_JOBS',
      'NOTIFY_WEBHOOK_TIMEOUT_MS',
      'NOTIFY_ALLOW_PRIVATE_ADDRESSES',
      'NOTIFY_TRACKER_URL',
      'VAPID_PUBLIC_KEY',
      'VAPID_PRIVATE_KEY',
      'VAPID_SUBJECT',
      'SMTP_URL',
      'NOTIFY_EMAIL_FROM',
    ],
  },
  {
    title: 'Redis and the response cache',
    intro: 'The state replicas share, and the opt-in response cache ([production.md](production.md#scale-out)).',
    variables: ['REDIS_URL', 'REDIS_COMMAND_TIMEOUT_MS', 'RESPONSE_CACHE_TTL_MS', 'RESPONSE_CACHE_ENTRY_BYTES', 'RESPONSE_CACHE_BYTES'],
  },
  {
    title: 'Logs, metrics and traces',
    intro:
      "What the gateway says about itself ([observability.md](observability.md)). The `OTEL_*` variables are OpenTelemetry's standard ones, those the gateway supports: tracing is off, and not even loaded, until an exporter or an OTLP endpoint is set. The OTLP exporter reads its other settings (`OTEL_EXPORTER_OTLP_HEADERS`, timeouts, compression) itself, as the OpenTelemetry SDK documents them.",
    variables: [
      'LOG_LEVEL',
      'METRICS_PATH',
      'OTEL_TRACES_EXPORTER',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
      'OTEL_SERVICE_NAME',
      'OTEL_TRACES_SAMPLER',
      'OTEL_TRACES_SAMPLER_ARG',
      'OTEL_SDK_DISABLED',
    ],
  },
];

/** One variable as the page shows it; each cell is Markdown. */
export interface Setting {
  name: string;
  default: string;
  takes: string;
  description: string;
}

/** A settings schema: envSchema, or (in the tests) one made from it. */
type Settings = z.ZodObject;

/** The unit a duration's name ends with. */
const UNITS: readonly [suffix: string, unit: string][] = [
  ['_MS', 'ms'],
  ['_S', 'seconds'],
  ['_DAYS', 'days'],
];
const isSize = (name: string) => /_BYTES(_|$)/.test(name);
const SIZES: readonly [unit: string, bytes: number][] = [
  ['GiB', 1024 ** 3],
  ['MiB', 1024 ** 2],
  ['KiB', 1024],
];

/** A byte count in the largest unit it is a whole number of (`32 MiB`), or undefined. */
function size(bytes: number): string | undefined {
  const found = SIZES.find(([, unit]) => bytes >= unit && bytes % unit === 0);
  return found && `${bytes / found[1]} ${found[0]}`;
}

const isFlag = (setting: z.ZodType) => setting.safeParse('on').data === true && setting.safeParse('off').data === false;

/** An unset variable's value as the page writes it: the schema's default, else the description's `unset`. */
function defaultCell(name: string, setting: z.ZodType, unset: unknown): string {
  const value = setting.safeParse(undefined).data;
  if (value !== undefined && unset !== undefined) throw new Error(`${name}: a default in the schema and an "unset" text both`);
  if (value === undefined) return typeof unset === 'string' ? unset : 'unset';
  if (typeof value === 'boolean') return value ? '`on`' : '`off`';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map((entry) => `\`${String(entry)}\``).join(', ');
  const inSize = typeof value === 'number' && isSize(name) ? size(value) : undefined;
  return `\`${String(value)}\`${inSize ? ` (${inSize})` : ''}`;
}

/** The values a variable takes: on/off, its choices, or its range with the unit its name gives. */
function takesCell(name: string, setting: z.ZodType): string {
  if (isFlag(setting)) return '`on`, `off`';
  // The value as the gateway reads it, after the transforms: a number's bounds, an enum's choices.
  const shape = z.toJSONSchema(setting, { io: 'output', unrepresentable: 'any' });
  if (shape.enum) return shape.enum.map((choice) => `\`${String(choice)}\``).join(', ');
  if (shape.type === 'number' && shape.minimum !== undefined && shape.maximum !== undefined) {
    if (isSize(name)) return [shape.minimum, shape.maximum].map((bytes) => size(bytes) ?? `${bytes} bytes`).join(' to ');
    const unit = UNITS.find(([suffix]) => name.endsWith(suffix))?.[1];
    return `${shape.minimum}–${shape.maximum}${unit ? ` ${unit}` : ''}`;
  }
  return '';
}

/** One variable of the schema as the page shows it. */
export function setting(name: string, settings: Settings = envSchema): Setting {
  const schema = settings.shape[name];
  if (!schema) throw new Error(`${name} is no setting of envSchema`);
  const meta = schema.meta() ?? {};
  if (typeof meta.description !== 'string' || !meta.description.trim())
    throw new Error(`${name} has no description: add .describe() (or .meta({ description })) in envSchema`);
  return {
    name,
    default: defaultCell(name, schema, meta.unset),
    takes: takesCell(name, schema),
    description: meta.description.replace(/\s+/g, ' ').trim(),
  };
}

/** What keeps the sections from matching the schema: a setting in none or in two, a name that is no setting. */
function sectionProblems(settings: Settings): string[] {
  const listed = SECTIONS.flatMap((section) => section.variables);
  return [
    ...Object.keys(settings.shape)
      .filter((name) => !listed.includes(name))
      .map((name) => `${name} is in no section of test/helpers/config-doc.ts`),
    ...listed.filter((name, index) => listed.indexOf(name) !== index).map((name) => `${name} is in two sections`),
    ...listed.filter((name) => !(name in settings.shape)).map((name) => `${name} is in a section but is no setting`),
  ];
}

const cell = (text: string) => text.replaceAll('|', '\\|') || '–';

/** A section's table: one row per variable, neighbours that say the same in one row. */
function table(variables: readonly string[], settings: Settings): string {
  const rows: { names: string[]; same: Omit<Setting, 'name'> }[] = [];
  for (const name of variables) {
    const { name: _name, ...same } = setting(name, settings);
    const last = rows.at(-1);
    if (last && isDeepStrictEqual(last.same, same)) last.names.push(name);
    else rows.push({ names: [name], same });
  }
  return [
    '| variable | default | takes | what it does |',
    '|---|---|---|---|',
    ...rows.map(
      ({ names, same }) =>
        `| ${names.map((name) => `\`${name}\``).join(', ')} | ${cell(same.default)} | ${cell(same.takes)} | ${cell(same.description)} |`,
    ),
  ].join('\n');
}

const HEAD = `# Configuration

<!-- Written by npm run docs:config from the settings schema (envSchema in src/server/config.ts, joined from src/server/config/): change the descriptions there, not here. -->

Every setting is an environment variable, checked when the gateway starts: an empty variable
counts as unset, each invalid value is reported on a line of its own, and the process exits
with code 1. **default** is what an unset variable means; **takes** is what it accepts (a
switch takes \`true\`, \`false\`, \`1\` and \`0\` too; sizes are written in bytes). The
settings that matter most in production are listed in
[production.md](production.md#settings-that-matter-in-production).

\`npm start\` and \`npm run dev\` in a checkout also read them from a \`.env\` file in the
checkout's folder when there is one (Node.js's own \`--env-file-if-exists\`: one \`NAME=value\`
a line, \`#\` for a comment); a variable set in the environment wins over the file, and
\`npm run dev\` starts again when the file changes. \`.env\` is git-ignored. The production
start (\`node src/tools/start.mjs\`, the image) reads no file.`;

const TAIL = `## Read elsewhere

These are not settings of the gateway's process: \`NODE_HEAP_FLAGS\`, the launcher's heap flags
([production.md](production.md#the-heap-sized-for-where-it-runs)); \`SIM_ADVANCE_EVERY_MS\` and the
other \`SIM_*\` variables of \`npm run simulator\` (\`src/simulator/main.ts\`);
\`ORDER_GRAPH_ENDPOINT\` and \`ORDER_GRAPH_PASSWORD\`, read by the command line ([cli.md](cli.md));
and the benchmark's own ([bench/README.md](../bench/README.md)).`;

/** The whole page. Throws when a setting has no description or is in no section. */
export function configPage(settings: Settings = envSchema): string {
  const problems = sectionProblems(settings);
  if (problems.length > 0) throw new Error(problems.join('\n'));
  const sections = SECTIONS.map(({ title, intro, variables }) => `## ${title}\n\n${intro}\n\n${table(variables, settings)}`);
  return `${[HEAD, ...sections, TAIL].join('\n\n')}\n`;
}

/** The committed page. */
export const committedConfigPage = () => readFileSync(CONFIG_PAGE, 'utf8');

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(CONFIG_PAGE, configPage());
  console.log(`wrote ${CONFIG_PAGE}`);
}
