/**
 * The benchmark's targets, each threshold stated once: issue 21's (the default gateway against
 * Apollo and the hand-written optimum) and issue 41's (the gateway as shipped, metrics and
 * traces on at the default sampling, against Tailcall and Apollo; issue 31's, made stricter). Each is worked out from the
 * figures of one run and reported with them: pass, FAIL, or not measured when a server did not
 * run (Tailcall on a platform npm has no build for).
 */

/** What a target reads of one server's run at one concurrency. */
export interface RunFigures {
  server: string;
  connections: number;
  p50: number;
  rps: number;
  cpuMsPerQuery: number;
  peakRssMb: number;
  upstreamCallsPerQuery: number;
  /** kB per query; undefined where it is not measured (Tailcall is not a Node process). */
  allocKbPerQuery?: number;
}

export type Verdict = 'pass' | 'FAIL' | 'not measured' | 'reported';

export interface Target {
  target: string;
  value: string;
  result: Verdict;
}

export const fixed = (value: number | undefined, digits = 1) =>
  value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);
export const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : a / b);
export const verdict = (pass: boolean | undefined): Verdict => (pass === undefined ? 'not measured' : pass ? 'pass' : 'FAIL');
/** A difference with its sign: +4.5, −0.3. */
const signed = (value: number | undefined) => (value === undefined ? '–' : `${value < 0 ? '−' : '+'}${fixed(Math.abs(value))}`);

/** Issue 21: the default gateway (undici, observability off) against Apollo and the optimum. */
export const ISSUE_21 = {
  rpsOverApollo: 1.25,
  rpsOverOptimum: 0.45,
  cpuOverApollo: 0.85,
  peakRssOverApollo: 0.8,
  peakRssMb: 300,
  c1P50OverOptimumMs: 3,
  c16P50OverOptimumMs: 5,
  observedCpuOverOff: 1.15,
} as const;

/**
 * Issue 41 (issue 31's, stricter): the gateway as shipped (metrics + traces on, default
 * sampling) against Tailcall, what it allocates and holds idle, its observability's cost, and
 * ahead of Apollo.
 */
export const ISSUE_41 = {
  cpuOverTailcall: 1.5,
  rpsOverTailcall: 0.9,
  peakRssMb: 150,
  peakRssOverTailcall: 3,
  c1P50OverTailcallMs: 2,
  observedCpuOverOff: 1.1,
  allocKbPerQuery: 100,
  idleRssMb: 70,
} as const;

/** The server issue 41 is about: the gateway with the observability it ships with. */
export const AS_SHIPPED = 'gateway-observed';

type Find = (server: string, connections: number) => RunFigures | undefined;
const finder =
  (runs: readonly RunFigures[]): Find =>
  (server, connections) =>
    runs.find((run) => run.server === server && run.connections === connections);

/** `a` against `b`: both figures and their ratio, and whether the ratio keeps to `test`. */
function compared(a: number | undefined, b: number | undefined, unit: string, digits: number, test: (r: number) => boolean) {
  const r = ratio(a, b);
  return {
    value: `${fixed(a, digits)} vs ${fixed(b, digits)} ${unit} (${fixed(r, 2)} ×)`,
    result: verdict(r === undefined ? undefined : test(r)),
  };
}

/** A c=1 or c=16 p50 against another server's plus some milliseconds. */
function p50Within(a: RunFigures | undefined, b: RunFigures | undefined, slackMs: number) {
  return {
    value: `${fixed(a?.p50)} vs ${fixed(b?.p50)} ms (${signed(a && b && a.p50 - b.p50)})`,
    result: verdict(a && b && a.p50 <= b.p50 + slackMs),
  };
}

export function issue21Targets(runs: readonly RunFigures[], callsPerQuery: number, concurrencies: readonly number[]): Target[] {
  const find = finder(runs);
  const g = find('gateway', 64);
  const a = find('apollo', 64);
  const o = find('optimum', 64);
  const calls = concurrencies.map((c) => find('gateway', c)?.upstreamCallsPerQuery);
  const t = ISSUE_21;
  const throughputOverApollo = ratio(g?.rps, a?.rps);
  const throughputOverOptimum = ratio(g?.rps, o?.rps);
  return [
    {
      target: `c=64 throughput ≥ ${t.rpsOverApollo} × Apollo`,
      value: `${fixed(throughputOverApollo, 2)} ×`,
      result: verdict(throughputOverApollo === undefined ? undefined : throughputOverApollo >= t.rpsOverApollo),
    },
    {
      target: `c=64 throughput ≥ ${t.rpsOverOptimum} × optimum`,
      value: `${fixed(throughputOverOptimum, 2)} ×`,
      result: verdict(throughputOverOptimum === undefined ? undefined : throughputOverOptimum >= t.rpsOverOptimum),
    },
    {
      target: `c=64 CPU per query ≤ ${t.cpuOverApollo} × Apollo`,
      ...compared(g?.cpuMsPerQuery, a?.cpuMsPerQuery, 'ms', 2, (r) => r <= t.cpuOverApollo),
    },
    {
      target: `c=64 peak RSS ≤ ${t.peakRssOverApollo} × Apollo`,
      ...compared(g?.peakRssMb, a?.peakRssMb, 'MB', 0, (r) => r <= t.peakRssOverApollo),
    },
    {
      target: `c=64 peak RSS < ${t.peakRssMb} MB`,
      value: `${fixed(g?.peakRssMb, 0)} MB`,
      result: verdict(g && g.peakRssMb < t.peakRssMb),
    },
    {
      target: `c=1 p50 ≤ optimum + ${t.c1P50OverOptimumMs} ms`,
      ...p50Within(find('gateway', 1), find('optimum', 1), t.c1P50OverOptimumMs),
    },
    {
      target: `c=16 p50 ≤ optimum + ${t.c16P50OverOptimumMs} ms`,
      ...p50Within(find('gateway', 16), find('optimum', 16), t.c16P50OverOptimumMs),
    },
    {
      target: `exactly ${callsPerQuery} upstream calls per query, at ${concurrencies.map((c) => `c=${c}`).join(' / ')}`,
      value: calls.map((n) => fixed(n, 2)).join(' / '),
      result: verdict(calls.includes(undefined) ? undefined : calls.every((n) => n === callsPerQuery)),
    },
    {
      target: `observability on: CPU per query < ${t.observedCpuOverOff} × off (c=64)`,
      ...compared(find(AS_SHIPPED, 64)?.cpuMsPerQuery, g?.cpuMsPerQuery, 'ms', 2, (r) => r < t.observedCpuOverOff),
    },
  ];
}

/**
 * Issue 41: the gateway as shipped against Tailcall at c=64 (and c=1 for latency), against
 * itself with observability off, its allocation per query and idle RSS, ahead of Apollo on
 * every column at c=64, and the moonshot (CPU at the optimum's), reported.
 */
export function issue41Targets(runs: readonly RunFigures[], idleRssMb: Readonly<Record<string, number | undefined>>): Target[] {
  const find = finder(runs);
  const g = find(AS_SHIPPED, 64);
  const tc = find('tailcall', 64);
  const a = find('apollo', 64);
  const o = find('optimum', 64);
  const t = ISSUE_41;
  const peak = g?.peakRssMb;
  /** Lower is better for every column but req/s. */
  const ahead = (column: string, pick: (run: RunFigures) => number | undefined, unit: string, digits: number, higherIsBetter = false) => {
    const mine = g && pick(g);
    const theirs = a && pick(a);
    return {
      target: `c=64 ${column} ahead of Apollo`,
      value: `${fixed(mine, digits)} vs ${fixed(theirs, digits)} ${unit}`,
      result: verdict(mine === undefined || theirs === undefined ? undefined : higherIsBetter ? mine > theirs : mine < theirs),
    };
  };
  return [
    {
      target: `c=64 CPU per query ≤ ${t.cpuOverTailcall} × Tailcall`,
      ...compared(g?.cpuMsPerQuery, tc?.cpuMsPerQuery, 'ms', 2, (r) => r <= t.cpuOverTailcall),
    },
    {
      target: `c=64 throughput ≥ ${t.rpsOverTailcall} × Tailcall`,
      ...compared(g?.rps, tc?.rps, 'req/s', 0, (r) => r >= t.rpsOverTailcall),
    },
    {
      target: `c=64 peak RSS ≤ ${t.peakRssMb} MB`,
      value: `${fixed(peak, 0)} MB`,
      result: verdict(peak === undefined ? undefined : peak <= t.peakRssMb),
    },
    {
      target: `c=64 peak RSS ≤ ${t.peakRssOverTailcall} × Tailcall`,
      ...compared(peak, tc?.peakRssMb, 'MB', 0, (r) => r <= t.peakRssOverTailcall),
    },
    {
      target: `c=1 p50 ≤ Tailcall + ${t.c1P50OverTailcallMs} ms`,
      ...p50Within(find(AS_SHIPPED, 1), find('tailcall', 1), t.c1P50OverTailcallMs),
    },
    {
      target: `observability on: CPU per query ≤ ${t.observedCpuOverOff} × off (c=64)`,
      ...compared(g?.cpuMsPerQuery, find('gateway', 64)?.cpuMsPerQuery, 'ms', 2, (r) => r <= t.observedCpuOverOff),
    },
    {
      target: `c=64 allocation per query ≤ ${t.allocKbPerQuery} kB`,
      value: `${fixed(g?.allocKbPerQuery, 0)} kB`,
      result: verdict(g?.allocKbPerQuery === undefined ? undefined : g.allocKbPerQuery <= t.allocKbPerQuery),
    },
    {
      target: `idle RSS ≤ ${t.idleRssMb} MB (3 s after start)`,
      value: `${fixed(idleRssMb[AS_SHIPPED], 0)} MB (Tailcall ${fixed(idleRssMb.tailcall, 0)} MB)`,
      result: verdict(idleRssMb[AS_SHIPPED] === undefined ? undefined : idleRssMb[AS_SHIPPED] <= t.idleRssMb),
    },
    ahead('p50', (run) => run.p50, 'ms', 1),
    ahead('throughput', (run) => run.rps, 'req/s', 0, true),
    ahead('CPU per query', (run) => run.cpuMsPerQuery, 'ms', 2),
    ahead('peak RSS', (run) => run.peakRssMb, 'MB', 0),
    ahead('allocation per query', (run) => run.allocKbPerQuery, 'kB', 0),
    {
      target: "moonshot: c=64 CPU per query at the optimum's (no threshold)",
      value: `${fixed(g?.cpuMsPerQuery, 2)} vs ${fixed(o?.cpuMsPerQuery, 2)} ms (${fixed(ratio(g?.cpuMsPerQuery, o?.cpuMsPerQuery), 2)} ×)`,
      result: g && o ? 'reported' : 'not measured',
    },
  ];
}
