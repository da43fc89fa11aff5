// The bytes requests may hold: one request's, and all requests' in flight together.
import { getHeapStatistics } from 'node:v8';
import { z } from 'zod';
import { SHED_FOR_MS } from '../../upstream/bytes.js';
import { integer, MIB } from './kinds.js';

/**
 * What a whole order of the default page may hold, its upstream answers and its answer: the
 * simulator's fullest customer's holds about 186 kB with today's parts
 * (test/integration/byte-budgets.test.ts measures it, and holds this above it), and this leaves
 * a third more for parts to come (a new upstream operation grows every whole order). A request
 * holding more than this gives way to newcomers while the requests in flight have no room
 * (upstream/bytes.ts).
 */
export const WHOLE_PAGE_BYTES = 256 * 1024;

/**
 * REQUEST_BYTES when unset: what one request may hold. Sixteen whole pages, 4 MiB: room for one
 * upstream answer at its 2 MB cap beside a page.
 */
export const DEFAULT_REQUEST_BYTES = 16 * WHOLE_PAGE_BYTES;

/**
 * IN_FLIGHT_BYTES when unset: this share of the V8 heap the process runs with (63 MB under the
 * Deployment's 640 Mi). What a request holds in bytes takes some four times as much heap while it
 * is read, copied and written (the text, the parsed JSON, the answer's text and its buffer), and
 * the heap holds the documents, the cached answers, the live snapshots, the histories and
 * (without Redis) the notification records beside it (32 MiB each at most): an eighth keeps a
 * crowd of large answers well inside the heap.
 */
export const IN_FLIGHT_SHARE_OF_HEAP = 1 / 8;

export const bytesVariables = z.object({
  REQUEST_BYTES: integer('REQUEST_BYTES', 10_000, 1024 * MIB)
    .default(DEFAULT_REQUEST_BYTES)
    .describe(
      'What one request may hold: the upstream answers it read (counted as they arrive) and the answer built from them (estimated before it is written); a live event has its own. Past it the request ends, `data` null with `ANSWER_TOO_LARGE`; other requests are untouched. The default is sixteen times what a whole order of the default page may hold (256 KiB).',
    ),
  IN_FLIGHT_BYTES: integer('IN_FLIGHT_BYTES', 100_000, 64 * 1024 * MIB)
    .optional()
    .meta({
      description:
        'What all requests in flight may hold together, counted as `REQUEST_BYTES` counts. A request that needs more than is left makes room first: requests holding more than it would end with `OVERLOADED`, the largest first. When that is not room enough it ends itself, and for a second new requests are refused, `OVERLOADED` with HTTP status 503 and `Retry-After: 1` (`/readyz` says `"memory": "shedding"`).',
      unset: 'an eighth of the V8 heap the process runs with (63 MB under the Deployment’s 640 Mi)',
    }),
});

/** Config's `bytes`: IN_FLIGHT_BYTES unset is a share of the heap. */
export function heldBytes(values: z.output<typeof bytesVariables>) {
  return {
    request: values.REQUEST_BYTES,
    inFlight: values.IN_FLIGHT_BYTES ?? Math.floor(getHeapStatistics().heap_size_limit * IN_FLIGHT_SHARE_OF_HEAP),
    shedMs: SHED_FOR_MS,
    smallBytes: WHOLE_PAGE_BYTES,
  };
}
