// What a run measures: a process's CPU and memory from /proc, latency percentiles, and autocannon
// driving one subject until every request sent is answered.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import type { Subject, SubjectName } from './subjects.js';
import type { WatchCollections } from './processes.js';

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK; // utime + stime, all threads
}

/** VmHWM (the process's peak so far) or VmRSS (now), in MB. */
export function rssMb(pid: number, which: 'VmHWM' | 'VmRSS' = 'VmHWM'): number {
  const match = new RegExp(`${which}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? NaN) / 1024;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** What autocannon's clients hold internally (v9): requests made, and the quota that ends a client. */
type ClientState = { reqsMade: number; responseMax?: number };

/**
 * What a process allocates per query: the bytes V8 allocated between its first and its last
 * garbage collection within a run, over the queries answered between them (a collection's
 * `allocated=` is what was allocated since the one before it). Undefined for a process that is
 * not Node's, or that collected fewer than twice in the run (a short run at c=1).
 */
export function allocationPerQuery(watch: WatchCollections | undefined) {
  if (!watch) return { answered: () => undefined, stop: () => undefined };
  let answered = 0;
  let first: number | undefined;
  let last = 0;
  let bytes = 0;
  const unwatch = watch((allocated) => {
    if (first === undefined) first = answered;
    else bytes += allocated;
    last = answered;
  });
  return {
    answered: () => void answered++,
    stop: () => {
      unwatch();
      return first === undefined || last === first ? undefined : bytes / (last - first);
    },
  };
}

/**
 * Drives one server for `seconds`, then lets every connection finish the request it has in
 * flight before closing: autocannon's own stop drops them while the server still works on
 * them, which would skew per-query CPU and upstream calls by up to one query per connection.
 * So every request sent is answered. req/s counts the answers within `seconds`.
 */
export function drive(subject: Subject, connections: number, seconds: number) {
  return new Promise<{ result: autocannon.Result; latencies: number[]; rps: number; allocatedBytesPerQuery?: number }>(
    (resolve, reject) => {
      const latencies: number[] = [];
      const allocation = allocationPerQuery(subject.watchCollections);
      const clients: ClientState[] = [];
      let answeredInWindow = 0;
      let windowS = 0;
      const startedAt = performance.now();
      const instance = autocannon(
        {
          ...subject.request,
          connections,
          duration: seconds + 30, // a backstop: the drain below ends the run
          setupClient: (client) => clients.push(client as unknown as ClientState),
          verifyBody: (body) => subject.verifyBody(body?.toString() ?? ''),
        },
        (error: unknown, result) => {
          clearTimeout(deadline);
          if (error) reject(error instanceof Error ? error : new Error(String(error)));
          else
            resolve({ result, latencies, rps: answeredInWindow / (windowS || result.duration), allocatedBytesPerQuery: allocation.stop() });
        },
      );
      // Our own latency samples: autocannon's histogram has a 1 ms resolution.
      instance.on('response', (_client, status, _bytes, ms) => {
        if (status >= 200 && status < 300) latencies.push(ms);
        if (windowS === 0) answeredInWindow++;
        allocation.answered();
      });
      const deadline = setTimeout(() => {
        windowS = (performance.now() - startedAt) / 1000;
        for (const client of clients) client.responseMax = Math.max(1, client.reqsMade);
      }, seconds * 1000);
    },
  );
}

export interface Run {
  server: SubjectName;
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
  /** What the process allocated per query, in kB (allocationPerQuery); undefined for Tailcall. */
  allocKbPerQuery?: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  mismatches: number;
}

export interface CallStats {
  total: number;
  operations: Record<string, number>;
}
