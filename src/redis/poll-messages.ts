// What the live polls share through Redis (the last snapshot under a key, the messages on a
// channel), checked on the way in: anyone who can write to Redis can write there, so a value
// becomes a snapshot or a message only when it has the shape one has, and its orders pass
// the same check as an upstream order list. Error texts never travel: a failure is its code
// and its details, and each process words it itself.
import { z } from 'zod';
import { ERROR_CODES } from '../error-codes.js';
import type { PollMessage, PollSnapshot } from '../live/coordinator.js';
import { storedFieldChange, storedFieldValues, storedText } from '../graph/order-changes.js';
import { readJson, type Checked } from '../graph/read-json.js';
import { OPERATION_NAMES, type OperationName } from '../upstream/contract.js';
import { readResponse } from '../upstream/shapes.js';

/** What an upstream-derived error may add to its code (UpstreamErrorDetails), each checked. */
export const ERROR_DETAILS = {
  operation: z.enum(OPERATION_NAMES as [OperationName, ...OperationName[]]).optional(),
  upstreamStatus: z.number().int().min(100).max(599).optional(),
  retryAfterSeconds: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
};

const snapshotSchema = z
  .object({
    observedAt: z.iso.datetime(),
    // Read as an upstream order list is: only the fields an order has, each of its shape.
    orders: z.unknown().transform((orders, context) => {
      const read = readResponse('orderDetails', orders);
      if (read === null) context.addIssue({ code: 'custom', message: 'not an order list as the upstream sends one' });
      return read ?? z.NEVER;
    }),
    fields: z.record(storedText, storedFieldValues),
    changes: z.record(storedText, z.array(storedFieldChange)),
    since: z.record(storedText, z.iso.datetime()).optional(),
  })
  .refine(({ orders, fields, changes, since = {} }) => {
    // The fields, changes and times of orders the snapshot holds, none other.
    const ids = new Set(orders.map((order) => order.id));
    return [...Object.keys(fields), ...Object.keys(changes), ...Object.keys(since)].every((id) => ids.has(id));
  }, 'fields, changes or times of an order the snapshot does not hold');

const failureSchema = z.object({
  kind: z.literal('failure'),
  code: z.enum(ERROR_CODES),
  // Rebuilt with only these keys: nothing else of what was sent reaches a client.
  details: z.object(ERROR_DETAILS),
});

const envelopeSchema = z.object({
  origin: z.string().max(100),
  message: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('snapshot'), snapshot: snapshotSchema }),
    failureSchema,
    z.object({ kind: z.literal('released') }),
  ]),
});

/** A message as it travels: who sent it, so a process skips its own (it delivered them already). */
export interface Envelope {
  origin: string;
  message: PollMessage;
}

function check<T>(schema: z.ZodType<T, unknown>, json: string, maxBytes: number): Checked<T> {
  // The length in UTF-16 units is at most the bytes it came as: longer is over the limit.
  if (json.length > maxBytes) return { ok: false, reason: `larger than ${maxBytes} bytes` };
  return readJson(schema, json);
}

/** A snapshot read from its key. */
export const readSnapshot = (json: string, maxBytes: number): Checked<PollSnapshot> => check(snapshotSchema, json, maxBytes);

/** An envelope read from a channel: a little more than the snapshot it may hold. */
export const readEnvelope = (json: string, maxSnapshotBytes: number): Checked<Envelope> =>
  check<Envelope>(envelopeSchema, json, maxSnapshotBytes + 1024);
