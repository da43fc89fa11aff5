// Live order updates (the `orderUpdates` subscription): how often a watched customer is polled,
// how many streams are allowed, the bytes its last poll may take.
import { z } from 'zod';
import type { LiveLimits } from '../../live/orders-hub.js';
import { integer, MIB } from './kinds.js';

/** LIVE_POLL_INTERVAL_MS when unset, in front of the real service. */
export const LIVE_POLL_INTERVAL_MS = 30_000;
/**
 * LIVE_POLL_INTERVAL_MS when unset, in front of the embedded simulator (npm start's demo): a
 * move of the demo order, on its timer or when asked for, reaches a subscriber within 5 s
 * instead of 30. The simulator tells no one of a move, as the real service would not: the demo
 * shows the same polling, only faster, where polls cost a local simulator nothing.
 */
export const DEMO_LIVE_POLL_INTERVAL_MS = 5_000;

export const liveVariables = z.object({
  LIVE_POLL_INTERVAL_MS: integer('LIVE_POLL_INTERVAL_MS', 100, 3_600_000).optional().meta({
    description:
      'How often a customer with open `orderUpdates` streams has its order list polled. In front of the embedded simulator it is 5 s, so a move of the demo order (its timer, or `POST /__simulator/advance`) reaches GraphiQL, the tracker page and `--watch` within 5 s; a local simulator takes the polls at no cost.',
    unset: '`30000` (`5000` with the embedded simulator)',
  }),
  LIVE_STREAMS_PER_CUSTOMER: integer('LIVE_STREAMS_PER_CUSTOMER', 1, 10_000)
    .default(50)
    .describe('Open live streams per customer, SSE and WebSocket together; past it, `RATE_LIMITED`.'),
  LIVE_STREAMS_PER_ADDRESS: integer('LIVE_STREAMS_PER_ADDRESS', 1, 100_000)
    .default(200)
    .describe('Open live streams per client address; past it, `RATE_LIMITED`.'),
  LIVE_SNAPSHOT_BYTES: integer('LIVE_SNAPSHOT_BYTES', 100_000, 4096 * MIB)
    .default(32 * MIB)
    .describe(
      "The heap the watched customers' last polls may take in one process (estimated, on the high side). A customer whose poll does not fit has its streams end with `RATE_LIMITED`.",
    ),
});

/** The live hub's limits; `simulated`: the embedded simulator serves the upstream. */
export function liveLimits(values: z.output<typeof liveVariables>, simulated: boolean): LiveLimits {
  return {
    pollIntervalMs: values.LIVE_POLL_INTERVAL_MS ?? (simulated ? DEMO_LIVE_POLL_INTERVAL_MS : LIVE_POLL_INTERVAL_MS),
    perCustomer: values.LIVE_STREAMS_PER_CUSTOMER,
    perAddress: values.LIVE_STREAMS_PER_ADDRESS,
    snapshotBytes: values.LIVE_SNAPSHOT_BYTES,
  };
}
