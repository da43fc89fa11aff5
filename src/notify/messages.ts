// What a notification says, the same on every channel: a title, a body a person reads (each
// vehicle code with its words), the tracker's link, and the idempotency key the channels carry
// (webhook-id, the push Topic, the Message-ID) so a change found twice is one message.
import { createHash, randomBytes } from 'node:crypto';
import { labelOf, type CodeKind, type CodeLabels } from '../graph/code-labels.js';
import type { FieldChange } from '../graph/mappers.js';
import { stageWords } from '../upstream/contract.js';
import type { Channel, Message } from './contracts.js';

/** What every message is written with: the code labels and the tracker's link (NOTIFY_TRACKER_URL, or `/tracker/`). */
export interface MessageContext {
  labels: CodeLabels;
  trackerUrl: string;
}

/** The longest a value is shown in a message; an upstream text past it is cut (a field may hold 10,000 characters). */
const VALUE_CHARS = 120;
/** The most changes one message lists; past them, "and N more". */
const CHANGE_LINES = 12;

/** The fields of orderFieldValues in words, and the code kind of those that hold a vehicle code. */
const FIELDS: Record<string, { words: string; code?: CodeKind }> = {
  reservationId: { words: 'Reservation' },
  status: { words: 'Stage' },
  rawStatus: { words: 'Status code' },
  createdAt: { words: 'Created' },
  updatedAt: { words: 'Updated' },
  cancelledAt: { words: 'Cancelled' },
  completedAt: { words: 'Completed' },
  buildEditableUntil: { words: 'Build editable until' },
  delivered: { words: 'Delivered' },
  'product.model': { words: 'Model', code: 'model' },
  'product.trim': { words: 'Trim', code: 'trim' },
  'product.country': { words: 'Country' },
  'configuration.exterior': { words: 'Exterior', code: 'exterior' },
  'configuration.interior': { words: 'Interior', code: 'interior' },
  'configuration.wheel': { words: 'Wheels', code: 'wheel' },
  'configuration.trim': { words: 'Trim', code: 'trim' },
};

// Said again by what sits beside them: the raw status by the stage, the record's last-changed time by any other change.
const ECHOES: Record<string, (changes: readonly FieldChange[]) => boolean> = {
  rawStatus: (changes) => changes.some(({ field }) => field === 'status'),
  updatedAt: (changes) => changes.some(({ field }) => field !== 'updatedAt'),
};

const cut = (text: string) => (text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS - 1)}…` : text);

/** A value as the message shows it: a stage in words, a code with its label ("Big Sur Blue (BSB)"), an unknown code as itself, none as "none". */
function valueWords(labels: CodeLabels, field: string, value: string | null): string {
  if (value === null) return 'none';
  if (field === 'status') return stageWords(value) ?? cut(value);
  const kind = FIELDS[field]?.code;
  const label = kind ? labelOf(labels, kind, value) : null;
  return label ? `${cut(label)} (${cut(value)})` : cut(value);
}

/** One change as a line: "Exterior: Pearl White (PPSW) → Big Sur Blue (BSB)". */
export function changeLine(labels: CodeLabels, { field, from, to }: FieldChange): string {
  return `${FIELDS[field]?.words ?? cut(field)}: ${valueWords(labels, field, from)} → ${valueWords(labels, field, to)}`;
}

const digest = (...parts: string[]) => createHash('sha256').update(JSON.stringify(parts)).digest('base64url');

/**
 * The key of one change: the same customer, order and new fields give the same key wherever
 * the change is found (two replicas polling the same move queue one message). The fields are
 * taken in name order, so their order in a record read back does not matter.
 */
export function changeKey(customerId: string, orderId: string, fields: Readonly<Record<string, string | null>>): string {
  const sorted = Object.keys(fields)
    .sort()
    .map((name) => [name, fields[name] ?? null]);
  return `chg_${digest(customerId, orderId, JSON.stringify(sorted))}`;
}

/** An order's change, as found by the watcher: the order's fields now (orderFieldValues) and what changed (orderChanges). */
export interface OrderChange {
  customerId: string;
  orderId: string;
  fields: Readonly<Record<string, string | null>>;
  changes: readonly FieldChange[];
  occurredAt: string;
}

/** The message for an order's change: "Order RN123: in production", a line per change, the tracker's link. */
export function messageForChange(context: MessageContext, { customerId, orderId, fields, changes, occurredAt }: OrderChange): Message {
  const name = cut(fields.reservationId ?? orderId);
  const status = fields.status ?? null;
  const title = status ? `Order ${name}: ${valueWords(context.labels, 'status', status)}` : `Order ${name} changed`;
  const shown = changes.filter((change) => !ECHOES[change.field]?.(changes));
  const lines = shown.slice(0, CHANGE_LINES).map((change) => changeLine(context.labels, change));
  if (shown.length > CHANGE_LINES) lines.push(`and ${shown.length - CHANGE_LINES} more`);
  return {
    kind: 'change',
    key: changeKey(customerId, orderId, fields),
    title,
    body: lines.join('\n'),
    url: context.trackerUrl,
    occurredAt,
    orderId,
    changes: [...changes],
  };
}

/** The test message a customer asks for: its key is new each time (two asks, two messages). */
export function messageForTest(context: MessageContext, occurredAt: string): Message {
  return {
    kind: 'test',
    key: `test_${randomBytes(16).toString('base64url')}`,
    title: 'Test notification',
    body: 'Notifications for your order reach you here.',
    url: context.trackerUrl,
    occurredAt,
  };
}

const CHANNEL_WORDS: Record<Channel, string> = { WEB_PUSH: 'browser notifications', EMAIL: 'e-mail', WEBHOOK: 'webhook' };

/**
 * To the other targets, when one failed for a day and was turned off. Its key is the target's
 * and the time its failures began, so the same disabling queued twice is one message.
 */
export function messageForDisabled(
  context: MessageContext,
  target: { id: string; channel: Channel; description: string; failingSince: string },
  occurredAt: string,
): Message {
  return {
    kind: 'disabled',
    key: `dis_${digest(target.id, target.failingSince)}`,
    title: 'A notification target was turned off',
    body: `Your ${CHANNEL_WORDS[target.channel]} ${cut(target.description)} failed for a day and was turned off. Turn it on again on the tracker.`,
    url: context.trackerUrl,
    occurredAt,
  };
}

/**
 * To every target when the gateway can no longer poll for the customer (the renewal was
 * refused, or the orders no longer fit): its key is the customer's and the session's.
 */
export function messageForEnded(context: MessageContext, customerId: string, session: string, occurredAt: string): Message {
  return {
    kind: 'ended',
    // The session that ended (its kept refresh token, sealed), not the time: queued again after a failure, it is the same job.
    key: `end_${digest(customerId, session)}`,
    title: 'Notifications stopped',
    body: 'Notifications stopped: sign in again and turn them on.',
    url: context.trackerUrl,
    occurredAt,
  };
}
