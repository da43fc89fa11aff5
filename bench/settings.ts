// The benchmark's settings: the BENCH_* variables (bench/README.md), the concurrencies, the
// customer, and what the streamed-answer runs take.
import os from 'node:os';
import { wholeOrderCalls } from '../src/graph/order-fields.js';
// Plain JavaScript without declarations: imported by a path the compiler does not follow.
import { heapFlags } from '../src/tools/heap-flags.mjs';
import type { StreamSettings } from './streams.js';

export const CONCURRENCIES = [1, 16, 64] as const;
export const CUSTOMER = 'ready@demo.test';
/** The upstream calls of the benchmark's whole order: its customer has one order. */
export const CALLS_PER_QUERY = wholeOrderCalls(1);

function envInt(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

export const settings = {
  latencyMs: envInt('BENCH_LATENCY_MS', 20, 0, 10_000),
  durationS: envInt('BENCH_DURATION_S', 10, 1, 600),
  warmupS: envInt('BENCH_WARMUP_S', 2, 0, 60),
  concurrencies: [...CONCURRENCIES],
  customer: CUSTOMER,
  gatewayNodeArgs: (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(/\s+/).filter(Boolean),
  /** What the launcher gives every gateway process here (NODE_HEAP_FLAGS, passed on, replaces them). */
  gatewayHeapFlags: heapFlags(process.env, process.constrainedMemory(), os.totalmem()),
};
export const streamSettings: StreamSettings = {
  latencyMs: 50,
  deferredRuns: 20,
  subscribers: 50,
  liveWindowS: envInt('BENCH_LIVE_S', 60, 1, 600),
};
