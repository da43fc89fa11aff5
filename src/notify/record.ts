// A customer's record as the stores keep it: JSON, read back through its shape (what does not
// fit is no record), and the hourly count of messages every queuing part shares.
import { z } from 'zod';
import { readJson } from '../graph/read-json.js';
import type { CustomerRecord } from './contracts.js';

const HOUR_MS = 3_600_000;
const isoTime = z.iso.datetime();
const sealed = z
  .string()
  .min(1)
  .max(64 * 1024);

const targetShape = z.strictObject({
  id: z.string().min(1).max(64),
  channel: z.enum(['WEB_PUSH', 'EMAIL', 'WEBHOOK']),
  description: z.string().max(2048),
  createdAt: isoTime,
  sealed,
  lastDeliveredAt: isoTime.nullable(),
  failingSince: isoTime.nullable(),
  nextAttemptAt: isoTime.nullable().optional(),
  disabledAt: isoTime.nullable(),
  disabledReason: z.string().max(1024).nullable(),
});

const recordShape = z.strictObject({
  customerId: z.string().min(1).max(256),
  refreshToken: sealed,
  accessToken: sealed.nullable(),
  accessExpiresAt: z.number().int().nonnegative().nullable(),
  targets: z.array(targetShape).max(1000),
  fields: z.record(z.string(), z.record(z.string(), z.string().nullable())).nullable(),
  sentAt: z.array(z.number().int().nonnegative()).max(100_000),
}) satisfies z.ZodType<CustomerRecord>;

export const encodeRecord = (record: CustomerRecord): string => JSON.stringify(record);

/** The record `text` holds for `customerId`, or why it is none (a value that is not a record of this customer). */
export function decodeRecord(customerId: string, text: string): { record: CustomerRecord } | { problem: string } {
  const read = readJson(recordShape, text, 'not a notification record');
  if (!read.ok) return { problem: read.reason };
  if (read.value.customerId !== customerId) return { problem: "another customer's record" };
  return { record: read.value };
}

/** The record's bytes as a store counts them (its JSON, in UTF-8). */
export const recordBytes = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * One message counted against the hourly limit: the record with `now` added to `sentAt` (older
 * than an hour dropped), or null when `perHour` messages went out within the last hour.
 */
export function countMessage(record: CustomerRecord, now: number, perHour: number): CustomerRecord | null {
  const recent = record.sentAt.filter((at) => at > now - HOUR_MS && at <= now);
  if (recent.length >= perHour) return null;
  return { ...record, sentAt: [...recent, now] };
}
