// The report: bench/results/latest.md's tables and latest.json's figures, from the runs.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { abuseMarkdown, type AbuseResults } from './abuse.js';
import type { Run } from './measure.js';
import { NODE, ROOT } from './processes.js';
import { CALLS_PER_QUERY, CONCURRENCIES, CUSTOMER, settings } from './settings.js';
import { streamsMarkdown, type StreamResults } from './streams.js';
import { CACHE_TTL_MS, SUBJECT_NAMES, type SubjectName } from './subjects.js';
import { fixed, issue21Targets, issue41Targets, ISSUE_41, ratio, type Target } from './targets.js';

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

export function buildReport(
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
  const leanTargets = issue41Targets(runs, idleRssMb);

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
      'allocated kB/query',
      'simulator CPU ms/query',
    ]),
    row(['---:', '---', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:', '---:']),
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
          fixed(run.allocKbPerQuery, 0),
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
            `**${fixed(ratio(run?.allocKbPerQuery, other?.allocKbPerQuery), 2)}**`,
            '',
          ]),
        );
      }
    }
  }
  lines.push(
    '',
    "Peak RSS is VmHWM, the process's peak so far: the last rows of each server are its peak over the whole benchmark.",
    'Allocated is what V8 allocated per query (every object, the short-lived included): each Node process runs with `--trace-gc-nvp`,',
    'and the bytes allocated between its first and last garbage collection of the run are divided by the queries answered between',
    'them (bench/measure.ts). Tailcall is not a Node process: not measured.',
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
    `Issue 41's (issue 31's, stricter): the gateway as shipped, "${LABELS['gateway-observed']}", against Tailcall at c=64 (latency at c=1),`,
    `against the gateway with observability off, its allocation per query and idle RSS, and ahead of Apollo on every column at c=64;`,
    `its peak RSS must keep to both ${ISSUE_41.peakRssMb} MB and ${ISSUE_41.peakRssOverTailcall} × Tailcall's. The moonshot, CPU at the optimum's, is reported.`,
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
    targets: { issue21: targets, issue41: leanTargets },
    streams,
    abuse,
    problems,
  };
  return { markdown: lines.join('\n'), json };
}
