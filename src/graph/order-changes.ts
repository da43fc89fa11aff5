// What changed in an order record, in the terms a client sees: the Order fields that come
// from the record itself (not from a per-order call), mapped by the resolvers' own functions.
import { z } from 'zod';
import type { Order as OrderModel } from '../upstream/models.js';
import { readable } from '../upstream/shapes.js';
import type { FieldChange } from './mappers.js';
import { ORDER_RECORD_FIELDS } from './resolvers/order.js';
import { PRODUCT_AMOUNTS } from './resolvers/product.js';

type Field = (order: OrderModel) => unknown;

/** The fields of a nested object of the record, as `prefix.field`. */
function within<T>(
  prefix: string,
  read: (order: OrderModel) => T | null | undefined,
  fields: Record<string, (value: T) => unknown>,
): Record<string, Field> {
  return Object.fromEntries(
    Object.entries(fields).map(([name, field]) => [
      `${prefix}.${name}`,
      (order: OrderModel) => {
        const value = readable(read(order));
        return value == null ? null : field(value);
      },
    ]),
  );
}

const FIELDS: Record<string, Field> = {
  reservationId: (order) => order.reservationId,
  ...ORDER_RECORD_FIELDS,
  ...within('product', (order) => order.product, {
    model: (p) => p.model,
    trim: (p) => p.trim,
    country: (p) => p.country,
    ...PRODUCT_AMOUNTS,
  }),
  ...within('configuration', (order) => order.configuration, {
    exterior: (c) => c.exterior,
    interior: (c) => c.interior,
    wheel: (c) => c.wheel,
    trim: (c) => c.trim,
  }),
};
// Read on every order list a request reads (the history compares each order): built once.
const FIELD_READS = Object.entries(FIELDS);
const FIELD_NAMES = Object.keys(FIELDS);

/** A field's value as OrderChange carries it: text, money as "68999.00 USD", none as null. */
function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'object' && 'amount' in value && 'currencyCode' in value)
    return `${String(value.amount)} ${String(value.currencyCode)}`;
  return String(value);
}

/**
 * The longest text of a field kept (order history) or shared (live polls): what is written is
 * held to it here, and what is read back (`storedText`) is checked against the same bound.
 */
export const MAX_FIELD_TEXT = 10_000;

/** A field's text, or undefined when it cannot be seen this time (sent in the wrong shape, or longer than MAX_FIELD_TEXT). */
function seen(read: Field, order: OrderModel): string | null | undefined {
  try {
    const text = asText(read(order));
    return text === null || text.length <= MAX_FIELD_TEXT ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The record's client-visible fields as text, to compare one reading with the next. A field
 * that cannot be seen this time keeps its `previous` text: a bad reading is no change.
 */
export function orderFieldValues(order: OrderModel, previous: Readonly<Record<string, string | null>> = {}): Record<string, string | null> {
  const values: Record<string, string | null> = {};
  for (const [field, read] of FIELD_READS) {
    const text = seen(read, order);
    values[field] = text !== undefined ? text : Object.hasOwn(previous, field) ? previous[field]! : null;
  }
  return values;
}

/** The fields whose text differs between two states of an order, in a stable order. */
export function orderChanges(before: Record<string, string | null>, after: Record<string, string | null>): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of FIELD_NAMES)
    if (before[field] !== after[field]) changes.push({ field, from: before[field] ?? null, to: after[field] ?? null });
  return changes;
}

// The shapes of these values read back from outside the process (a poll shared over Redis, a
// kept order history): bounds well above what the gateway writes (an upstream id or field
// value), so only a foreign value fails them.
/** An id or a field's text, read back. */
export const storedText = z.string().max(MAX_FIELD_TEXT);
/** An order's field values (orderFieldValues), read back. */
export const storedFieldValues = z.record(storedText, storedText.nullable());
/** One change (orderChanges), read back. */
export const storedFieldChange = z.object({ field: storedText, from: storedText.nullable(), to: storedText.nullable() });
