// What the gateway keeps of each order it reads (Order.history).
import { z } from 'zod';
import type { HistoryBounds } from '../../graph/customer-history.js';
import { flag, integer, MIB } from './kinds.js';

export const historyVariables = z.object({
  HISTORY: flag('HISTORY')
    .default(true)
    .describe("Keep each order's history (`Order.history`). `off` keeps nothing anywhere, and every `history` is `[]`."),
  HISTORY_EVENTS_PER_ORDER: integer('HISTORY_EVENTS_PER_ORDER', 1, 10_000).default(100).describe('The newest events kept per order.'),
  HISTORY_MAX_AGE_DAYS: integer('HISTORY_MAX_AGE_DAYS', 1, 3650)
    .default(400)
    .describe('Events older than this are dropped; a Redis history key expires this long after its last write.'),
  HISTORY_CUSTOMER_BYTES: integer('HISTORY_CUSTOMER_BYTES', 10_000, 64 * MIB)
    .default(256 * 1024)
    .describe("One customer's history at most, as JSON, in memory and in Redis; past it the oldest events go first."),
  HISTORY_BYTES: integer('HISTORY_BYTES', 100_000, 4096 * MIB)
    .default(32 * MIB)
    .describe(
      "All customers' histories together. Without `REDIS_URL`, kept in this process (estimated heap; past it the least recently used customers are forgotten); with it, in Redis for all replicas (past it the histories written longest ago go first).",
    ),
});

export function history(values: z.output<typeof historyVariables>) {
  const bounds: HistoryBounds = {
    eventsPerOrder: values.HISTORY_EVENTS_PER_ORDER,
    maxAgeMs: values.HISTORY_MAX_AGE_DAYS * 86_400_000,
    customerBytes: values.HISTORY_CUSTOMER_BYTES,
  };
  return values.HISTORY ? { bounds, totalBytes: values.HISTORY_BYTES } : null;
}
