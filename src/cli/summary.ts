// The customer-facing text of `order-graph`: pure functions from a whole-order result to lines of text.
/**
 * Pure functions, so the wording can be tested without a server. What they print for humans
 * goes through printableData first (terminal.ts): every string from the gateway loses the
 * characters a terminal would act on, before any of it is formatted.
 */
import type { OrderGraphError, OrderResult } from '../client/index.js';
import type {
  OrderHistoryQuery,
  OrderPart,
  OrderStatus,
  OrderUpdatesSubscription,
  WholeOrderQuery,
} from '../client/__generated__/graphql.js';
import { ORDER_STAGES, STAGE_WORDS, stageWords } from '../client/index.js';
import { jsonText, printableData } from './terminal.js';

type Customer = NonNullable<WholeOrderQuery['me']>;
type Order = NonNullable<Customer['orders']>[number];
type Money = { amount: string; currencyCode: string };
type Path = ReadonlyArray<string | number>;

type Stage = (typeof ORDER_STAGES)[number];

const LABEL_WIDTH = 12;
const INDENT = '  ';

export function stageNumber(status: OrderStatus): number | null {
  const at = (ORDER_STAGES as readonly string[]).indexOf(status);
  return at < 0 ? null : at + 1;
}

/** e.g. "Stage 7 of 8: ready for pickup". */
export function stageLine(status: OrderStatus, rawStatus: string): string {
  if (status === 'CANCELLED') return 'Cancelled: this order will not go any further.';
  const number = stageNumber(status);
  if (number === null) return `Unknown status "${rawStatus}": not one this tool knows yet.`;
  return `Stage ${number} of ${ORDER_STAGES.length}: ${STAGE_WORDS[status as Stage]}`;
}

/** e.g. "●●●●●●●○  next: delivered"; null outside the sequence. */
export function progressLine(status: OrderStatus): string | null {
  const number = stageNumber(status);
  if (number === null) return null;
  const bar = '●'.repeat(number) + '○'.repeat(ORDER_STAGES.length - number);
  const next = ORDER_STAGES[number];
  return next ? `${bar}  next: ${STAGE_WORDS[next]}` : `${bar}  complete`;
}

/**
 * "68999.00" + "USD" → "68,999.00 USD". The amount stays a string: only the integer digits
 * get separators, so no float ever touches a price.
 */
export function formatMoney(money: Money): string {
  const match = /^([-+]?)(\d+)(\.\d+)?$/.exec(money.amount);
  if (!match) return `${money.amount} ${money.currencyCode}`;
  const [, sign = '', whole = '', fraction = ''] = match;
  return `${sign}${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fraction} ${money.currencyCode}`;
}

/** "OFFER_ACCEPTED" → "offer accepted". */
function words(value: string): string {
  return value.toLowerCase().replaceAll('_', ' ');
}

/** The date part of an ISO timestamp: the customer needs the day, not the millisecond. */
function day(value: string | null | undefined): string | null {
  return value ? value.slice(0, 10) : null;
}

function joined(parts: ReadonlyArray<string | null | undefined>, separator = ' · '): string {
  return parts.filter((part): part is string => Boolean(part)).join(separator);
}

function samePath(a: Path | undefined, b: Path): boolean {
  return a !== undefined && a.length === b.length && a.every((segment, i) => segment === b[i]);
}

function errorAt(errors: readonly OrderGraphError[], path: Path): OrderGraphError | undefined {
  return errors.find((error) => samePath(error.path, path));
}

function codeOf(error: OrderGraphError | undefined): string {
  return error?.extensions?.code ?? 'UNKNOWN_ERROR';
}

/**
 * What to say for a field that came back null. The null alone is ambiguous: the order's
 * `availability` tells "not at this stage yet" and the error at its path "the service
 * failed" from "there is none".
 */
function absent(errors: readonly OrderGraphError[], path: Path, order: Order, part?: OrderPart, noneText = 'none'): string {
  const error = errorAt(errors, path);
  if (error && error.extensions?.code !== 'NOT_AVAILABLE') return `could not be loaded right now (${codeOf(error)})`;
  const gate = order.availability.find((entry) => entry.part === part);
  if (!error && (!gate || gate.available)) return noneText;
  if (order.status === 'CANCELLED') return 'not available for a cancelled order';
  const stage = gate && !gate.available ? stageNumber(gate.from) : null;
  if (!gate || stage === null) return 'not available yet';
  return `not available yet (comes at stage ${stage} of ${ORDER_STAGES.length}: ${STAGE_WORDS[gate.from as Stage]})`;
}

function field(label: string, lines: readonly string[]): string[] {
  const [first = '', ...rest] = lines;
  const pad = ' '.repeat(LABEL_WIDTH);
  return [`${INDENT}${label.padEnd(LABEL_WIDTH)}${first}`, ...rest.map((line) => `${INDENT}${pad}${line}`)];
}

function addressLine(address: NonNullable<Order['shippingAddress']>): string {
  const cityLine = joined([address.city, joined([address.region, address.postalCode], ' ')], ', ');
  return joined([address.line1, address.line2, cityLine, address.country], ', ');
}

/** An option code with its words when the gateway has them ("Big Sur Blue (BSB)"), else the code as it is. */
const coded = (code: string | null, label: string | null) => (code && label ? `${label} (${code})` : code);

function vehicleLines(order: Order, errors: readonly OrderGraphError[], path: Path): string[] {
  const vehicle = order.vehicle;
  if (!vehicle) return [absent(errors, [...path, 'vehicle'], order, 'VEHICLE', 'none assigned yet')];
  const colours = [
    vehicle.exterior && `exterior ${coded(vehicle.exterior, vehicle.exteriorLabel)}`,
    vehicle.interior && `interior ${coded(vehicle.interior, vehicle.interiorLabel)}`,
    vehicle.wheel && `wheels ${coded(vehicle.wheel, vehicle.wheelLabel)}`,
  ].filter((line): line is string => Boolean(line));
  const together = colours.join(', ');
  return [
    joined([`VIN ${vehicle.vin}`, vehicle.modelYear !== null ? `model year ${vehicle.modelYear}` : null]),
    // On one line while it fits beside the label, else one a line: with their words they pass 80 columns.
    ...(INDENT.length + LABEL_WIDTH + together.length <= DEFAULT_WIDTH ? [together].filter(Boolean) : colours),
  ];
}

function pickupLines(order: Order, errors: readonly OrderGraphError[], path: Path): string[] {
  const pickup = order.pickup;
  if (!pickup) return [absent(errors, [...path, 'pickup'], order, 'PICKUP')];
  const distance = pickup.distance && `${pickup.distance.value} ${pickup.distance.unit.toLowerCase()} away`;
  const earliest = pickup.earliestPickupDate && `earliest pickup ${pickup.earliestPickupDate}`;
  const address = pickup.address && addressLine(pickup.address);
  return [pickup.name, ...(address ? [address] : []), ...(distance || earliest ? [joined([distance, earliest])] : [])];
}

function amountDueLines(order: Order, errors: readonly OrderGraphError[], path: Path): string[] {
  const estimate = order.estimate;
  if (!estimate) return [absent(errors, [...path, 'estimate'], order, 'ESTIMATE')];
  const details = joined(
    [
      `total ${formatMoney(estimate.total)}`,
      estimate.paidTotal && `paid ${formatMoney(estimate.paidTotal)}`,
      estimate.isEstimate ? 'estimate' : null,
    ],
    ', ',
  );
  // On a line of its own: beside a large amount it passes 80 columns.
  return [formatMoney(estimate.amountDue), details];
}

function paymentLines(order: Order, errors: readonly OrderGraphError[], path: Path): string[] {
  const payments = order.payments;
  if (!payments) return [absent(errors, [...path, 'payments'], order)];
  if (payments.length === 0) return ['none'];
  return payments.map((payment) => {
    const card = payment.card && joined([payment.card.brand, payment.card.last4 && `ending ${payment.card.last4}`], ' ');
    const status = payment.status === 'UNKNOWN' ? 'status unknown' : words(payment.status);
    return joined([
      formatMoney(payment.amount),
      status,
      card || (payment.method && words(payment.method)),
      day(payment.paidAt) && `paid ${day(payment.paidAt)}`,
    ]);
  });
}

function tradeInLines(order: Order, errors: readonly OrderGraphError[], path: Path): string[] {
  const tradeIn = order.tradeIn;
  if (!tradeIn) return [absent(errors, [...path, 'tradeIn'], order)];
  const car = tradeIn.vehicle && joined([tradeIn.vehicle.year?.toString(), tradeIn.vehicle.make, tradeIn.vehicle.model], ' ');
  const offer =
    tradeIn.offer &&
    joined(
      [`offer ${formatMoney(tradeIn.offer.amount)}`, day(tradeIn.offer.expiresAt) && `valid until ${day(tradeIn.offer.expiresAt)}`],
      ', ',
    );
  return [
    joined([tradeIn.status === 'UNKNOWN' ? 'status unknown' : words(tradeIn.status), car]),
    // On lines of their own: together they pass 80 columns.
    ...(offer ? [offer] : []),
    ...(tradeIn.netCredit ? [`net credit ${formatMoney(tradeIn.netCredit)}`] : []),
  ];
}

/** One order's block: a heading and one labelled field per part. */
export function orderSummary(order: Order, errors: readonly OrderGraphError[], path: Path): string[] {
  const product = order.product
    ? joined([coded(order.product.model, order.product.modelLabel), coded(order.product.trim, order.product.trimLabel)], ' ')
    : '';
  const progress = progressLine(order.status);
  const status = [stageLine(order.status, order.rawStatus), ...(progress ? [progress] : [])];
  if (order.status === 'CANCELLED' && order.cancelledAt)
    status[0] = `Cancelled on ${day(order.cancelledAt)}: this order will not go any further.`;
  return [
    `Order ${order.reservationId}${product ? ` · ${product}` : ''}`,
    ...field('Status', status),
    ...field('Vehicle', vehicleLines(order, errors, path)),
    ...field('Pickup', pickupLines(order, errors, path)),
    ...field('Amount due', amountDueLines(order, errors, path)),
    ...field('Payments', paymentLines(order, errors, path)),
    ...field('Trade-in', tradeInLines(order, errors, path)),
  ];
}

/**
 * The error that leaves nothing to summarise: the customer (`me`) or their order list did
 * not come back. Null when the summary can be shown, whatever else failed.
 */
export function blockingError(result: OrderResult<WholeOrderQuery>): OrderGraphError | null {
  const me = result.data?.me;
  if (!me) return errorAt(result.errors, ['me']) ?? result.errors[0] ?? { message: 'The service sent no customer data.' };
  if (me.orders === null) return errorAt(result.errors, ['me', 'orders']) ?? null;
  return null;
}

/** The whole readable summary, ending with a newline; nothing from the gateway reaches it unfiltered. */
export function summarize(received: OrderResult<WholeOrderQuery>): string {
  const result = printableData(received);
  const { errors } = result;
  const me = result.data?.me;
  if (!me) {
    const error = blockingError(result);
    return `Your order details could not be loaded right now (${codeOf(error ?? undefined)}).\n`;
  }
  const name = joined([me.firstName, me.lastName], ' ');
  const who = name ? joined([name, me.email && `(${me.email})`], ' ') : (me.email ?? `customer ${me.id}`);
  const orders = me.orders;
  if (orders === null) {
    const error = errorAt(errors, ['me', 'orders']);
    return `${who}\n\n${error ? `Your orders could not be loaded right now (${codeOf(error)}).` : 'You have no orders yet.'}\n`;
  }
  if (orders.length === 0) return `${who}\n\nYou have no orders yet.\n`;
  const blocks = orders.map((order, i) => orderSummary(order, errors, ['me', 'orders', i]).join('\n'));
  return `${who} · ${orders.length} ${orders.length === 1 ? 'order' : 'orders'}\n\n${blocks.join('\n\n')}\n`;
}

/** `--json`: the data as received, split into customer and orders, with every error. */
export function toJson(result: OrderResult<WholeOrderQuery>): string {
  const me = result.data?.me ?? null;
  let output: { customer: Omit<Customer, 'orders'> | null; orders: Customer['orders']; errors: OrderGraphError[] };
  if (me) {
    const { orders, ...customer } = me;
    output = { customer, orders, errors: result.errors };
  } else {
    output = { customer: null, orders: null, errors: result.errors };
  }
  return `${jsonText(output, 2)}\n`;
}

type Update = OrderUpdatesSubscription['orderUpdates'];

/** What --watch remembers of an order between events. */
export type WatchedStatus = Pick<Order, 'id' | 'status' | 'rawStatus'>;

/**
 * --watch's line for one event, or null when it tells nothing new: e.g.
 * "2026-11-23 10:04  OC-ACBDE  status: in transit → delivered (+2 more)", fitted to `width`
 * columns. An event without changes (the state on subscribing) counts only when its status
 * differs from what was last seen. With `json`, the event as one line of JSON.
 */
export function changeLine(update: Update, before: WatchedStatus | undefined, json: boolean, width = DEFAULT_WIDTH): string | null {
  const { order, observedAt } = update;
  let changes = update.changes;
  if (changes.length === 0) {
    if (!before || before.rawStatus === order.rawStatus) return null;
    changes = [{ field: 'status', from: before.status, to: order.status }];
  }
  if (json) return `${jsonText({ observedAt, orderId: order.id, reservationId: order.reservationId, status: order.status, changes })}\n`;
  return eventLine({ observedAt, reservationId: order.reservationId, changes }, width);
}

type Change = Update['changes'][number];

/** The width a line is fitted to when stdout is not a terminal (a pipe, a file). */
export const DEFAULT_WIDTH = 80;

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** A time from the gateway (ISO 8601) in the local time zone, to the minute: "2026-11-23 10:04"; any other text as it is. */
function localTime(value: string): string {
  const at = ISO_DATE_TIME.test(value) ? new Date(value) : null;
  if (!at || Number.isNaN(at.getTime())) return value;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}`;
}

/**
 * The changes a reader's line shows, status first: rawStatus only where the status's words do
 * not already say it (an unknown status), updatedAt only when nothing else changed (it moves
 * with every change). `--json` keeps every change.
 */
function shownChanges(changes: readonly Change[]): Change[] {
  const status = changes.find((change) => change.field === 'status');
  const spelled = status !== undefined && status.from !== 'UNKNOWN' && status.to !== 'UNKNOWN';
  const rest = changes.filter(
    (change) =>
      change.field !== 'status' &&
      !(change.field === 'rawStatus' && spelled) &&
      !(change.field === 'updatedAt' && changes.some((other) => other.field !== 'updatedAt')),
  );
  return status ? [status, ...rest] : rest;
}

/** The line cut to `width` columns (one per character), ending "…" where it was cut. */
function fitted(line: string, width: number): string {
  const characters = [...line];
  return characters.length <= width ? line : `${characters.slice(0, Math.max(1, width - 1)).join('')}…`;
}

/**
 * One event's line for humans, --watch's and --history's alike: when (local time, to the
 * minute), the reservation, and each changed field "field: from → to" (statuses in words,
 * times local), or what `described` says instead. Fitted to `width`: the changes after the
 * first are named, then counted ("(+2 more)"), and only then is the line cut. Compared as
 * received; only what is printed is filtered.
 */
function eventLine(
  event: { observedAt: string; reservationId: string; changes: readonly Change[]; described?: string },
  width: number,
): string {
  const shown = printableData({ ...event, changes: shownChanges(event.changes) });
  const head = `${localTime(shown.observedAt)}  ${shown.reservationId}  `;
  const value = (field: string, text: string | null) => (field === 'status' ? statusWords(field, text) : localTime(text ?? 'none'));
  const parts = shown.changes.map(({ field, from, to }) => `${field}: ${value(field, from)} → ${value(field, to)}`);
  const [first = '', ...others] = parts;
  const names = shown.changes.slice(1).map((change) => change.field);
  let texts = [parts.join('; ')];
  if (shown.described) texts = [shown.described];
  else if (others.length > 0) texts.push(`${first}; also ${names.join(', ')}`, `${first} (+${others.length} more)`);
  const text = texts.find((candidate) => [...`${head}${candidate}`].length <= width) ?? texts.at(-1)!;
  return `${fitted(`${head}${text}`, width)}\n`;
}

type HistoryOrder = NonNullable<OrderHistoryQuery['orders']>[number];

/**
 * --history: every event of the caller's orders, newest first across them, one line each, in
 * --watch's words and fitted to `width` as --watch's are; an order's first observation (no
 * changes) as "first seen: <status>", the status it had then (its current one, with the later
 * status changes undone). With `json`, one JSON object per event and line.
 */
export function historyLines(orders: readonly HistoryOrder[], json: boolean, width = DEFAULT_WIDTH): string {
  const events = orders.flatMap((order) => {
    let status: string | null = order.status;
    return order.history.map((event) => {
      const first = event.changes.length === 0 ? status : undefined;
      status = event.changes.find((change) => change.field === 'status')?.from ?? status;
      return { order, event, first };
    });
  });
  events.sort((a, b) => Date.parse(b.event.observedAt) - Date.parse(a.event.observedAt));
  if (events.length === 0) return json ? '' : 'No history is kept for your orders (the gateway keeps none).\n';
  return events
    .map(({ order, event, first }) => {
      if (json)
        return `${jsonText({ observedAt: event.observedAt, orderId: order.id, reservationId: order.reservationId, changes: event.changes })}\n`;
      const described = first === undefined ? undefined : `first seen: ${statusWords('status', first)}`;
      return eventLine({ observedAt: event.observedAt, reservationId: order.reservationId, changes: event.changes, described }, width);
    })
    .join('');
}

/** A status in words ("in transit"); any other value as it is, "none" for null. */
function statusWords(field: string, value: string | null): string {
  if (value === null) return 'none';
  // Own keys only: "constructor" from the gateway is a value, not a way into Object.prototype.
  return (field === 'status' && stageWords(value)) || value;
}
