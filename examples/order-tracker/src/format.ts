// How the page writes the API's values: stages, codes, money, dates and changed fields, in the reader's locale.
import { ORDER_STAGES, type OrderGraphError } from '@order-graph/client';

const STAGE_NAMES: Record<string, string> = {
  RESERVED: 'Reserved',
  ORDER_PENDING_PAYMENT: 'Payment pending',
  ORDER_CONFIRMED: 'Confirmed',
  BUILD_LOCKED: 'Build locked',
  IN_PRODUCTION: 'In production',
  IN_TRANSIT: 'In transit',
  READY_FOR_PICKUP: 'Ready for pickup',
  DELIVERED: 'Delivered',
  CANCELLED: 'Cancelled',
};

/** A status as a person reads it; an unknown one as the API spelled it. */
export const stageName = (status: string) => STAGE_NAMES[status] ?? status.toLowerCase().replaceAll('_', ' ');

/** The order's place among the stages; -1 for a status that is none of them (CANCELLED, unknown). */
export const stageIndex = (status: string) => (ORDER_STAGES as readonly string[]).indexOf(status);

/** An enum value or a code as words: CREDIT_CARD as "Credit card". */
export const words = (code: string) => {
  const text = code.toLowerCase().replaceAll('_', ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
};

/** A field's name as words: tradeIn as "Trade in". */
export const fieldWords = (field: string) => words(field.replace(/([a-z\d])([A-Z])/g, '$1_$2'));

const FEE_TYPES: Record<string, string> = { ORDER_FEE: 'Order fee' };

/** What a payment is for (its FeeType); a fee type this page does not know in plain words. */
export const feeTypeName = (feeType: string) => FEE_TYPES[feeType] ?? words(feeType);

/** A rate as a fraction (0.095) as a percentage: "9.5%". */
export const percent = (rate: number) => new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 3 }).format(rate);

/** A Decimal amount in its currency. Display only: no arithmetic is done on it. */
export function money(value: { amount: string; currencyCode: string } | null | undefined): string {
  if (!value) return '—';
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: value.currencyCode }).format(Number(value.amount));
  } catch {
    return `${value.amount} ${value.currencyCode}`;
  }
}

/** A DateTime (ISO 8601) as a date and time. */
export const dateTime = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—';

/** A Date (YYYY-MM-DD) as a date, read as the calendar day it names, whatever the reader's time zone. */
export const day = (date: string | null | undefined) =>
  date ? new Date(`${date}T12:00:00Z`).toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' }) : '—';

/** A value of the API's as the page writes it when it has no words of its own for it: a flag as Yes or No, a time in the reader's locale, an enum value in words. */
export function valueText(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value)) return dateTime(value);
  if (typeof value === 'string' && /^[A-Z][A-Z\d]*(_[A-Z\d]+)+$/.test(value)) return words(value);
  return String(value);
}

const FIELD_NAMES: Record<string, string> = {
  status: 'Stage',
  rawStatus: 'Status code',
  updatedAt: 'Updated',
  completedAt: 'Completed',
  cancelledAt: 'Cancelled',
  delivered: 'Delivered',
  buildEditableUntil: 'Build editable until',
};

/** One change as a line: "Stage: In production → In transit". */
export function changeLine({ field, from, to }: { field: string; from?: string | null; to?: string | null }): string {
  const value = (text: string | null | undefined) => {
    if (text === null || text === undefined) return 'none';
    if (field === 'status') return stageName(text);
    return /^\d{4}-\d\d-\d\dT/.test(text) ? dateTime(text) : text;
  };
  return `${FIELD_NAMES[field] ?? field}: ${value(from)} → ${value(to)}`;
}

type Change = { field: string; from?: string | null; to?: string | null };

// Said again by what sits beside them: the raw status by the stage it spells, the record's
// last-changed time by the entry's own time.
const ECHOES: Record<string, (others: readonly Change[]) => boolean> = {
  rawStatus: (others) => others.some((other) => other.field === 'status'),
  updatedAt: (others) => others.some((other) => other.field !== 'updatedAt'),
};

/** The changes as lines, leaving out those that only repeat another beside them. */
export const changeLines = (changes: readonly Change[]) =>
  changes
    .filter((change) => !ECHOES[change.field]?.(changes))
    .map(changeLine)
    .join('; ');

/** Why something could not be loaded, by its error's code, in the customer's words (the code itself is for programs). */
const FAILURES: Record<string, string> = {
  UPSTREAM_TIMEOUT: 'the order service took too long to answer.',
  RATE_LIMITED: 'the order service is busy right now.',
  OVERLOADED: 'the order service is busy right now: try again in a moment.',
  UNAUTHENTICATED: 'your sign-in has run out. Sign out and in again.',
  FORBIDDEN: 'the order service did not let us show it.',
  UPSTREAM_BUDGET_EXCEEDED: 'this page asked for too much at once.',
  ANSWER_TOO_LARGE: 'the order is too large to show at once.',
};
export const failureWords = (error: OrderGraphError) => FAILURES[error.extensions?.code ?? ''] ?? 'the order service had a problem.';
