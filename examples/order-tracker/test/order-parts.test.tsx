// The page's cards from an order, rendered to HTML: a card per stage-gated part the order's
// availability lists, whatever the part (one newer than this build of the page shows
// generically, under its field's name), and a value of any shape written out line by line;
// each part shown, failed (with a retry), not reached yet or none, whatever the order's status.
import { isValidElement, type ReactElement, type ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { AVAILABLE_FROM, type OrderGraphError } from '@order-graph/client';
import { OrderParts, Progress } from '../src/order-card';
import { Part } from '../src/part';
import { fieldLines, gatedParts, partField } from '../src/parts';
import type { TrackedOrder } from '../src/tracked-order';

const money = (amount: string) => ({ amount, currencyCode: 'USD' });

/** An order's fields with nothing in them yet: each test's order sets what it needs. */
const NOTHING_YET = { updatedAt: null, delivered: false, product: null, configuration: null, vehicle: null, pickup: null, estimate: null };

/**
 * An order at IN_TRANSIT as a newer API answers it: its availability lists the stage table's
 * parts and three this page has no view for, one the page's query selects (deliveryWindow),
 * one not reached, one reached that the query does not select.
 */
function order(): TrackedOrder {
  const availability = [
    ...Object.entries(AVAILABLE_FROM).map(([field, from]) => ({ part: field.toUpperCase(), from, available: from !== 'READY_FOR_PICKUP' })),
    { part: 'DELIVERY_WINDOW', from: 'IN_TRANSIT', available: true },
    { part: 'HANDOVER_SLOT', from: 'READY_FOR_PICKUP', available: false },
    { part: 'RETURN_POLICY', from: 'ORDER_CONFIRMED', available: true },
  ];
  return {
    id: 'order-1',
    reservationId: 'OC-TESTS',
    status: 'IN_TRANSIT',
    rawStatus: 'IN_TRANSIT',
    availability,
    ...NOTHING_YET,
    deliveryWindow: { opensAt: '2026-12-01T09:00:00.000Z', deposit: money('100.00'), carrier: 'ROAD_FREIGHT', confirmed: false },
  } as unknown as TrackedOrder;
}

/** The rendered cards: each part's field, whether it is gated, its state, and its text. */
function cards(html: string) {
  const found = [...html.matchAll(/<section class="part"[^>]*data-part="([^"]+)"([^>]*)>([\s\S]*?)<\/section>/g)];
  return found.map(([, field, attributes, body]) => ({
    field,
    gated: attributes!.includes('data-gated'),
    state: /data-state="([^"]+)"/.exec(attributes!)?.[1],
    /** Each button by its name (its aria-label). */
    buttons: [...body!.matchAll(/<button([^>]*)>/g)].map(([, button]) => /aria-label="([^"]*)"/.exec(button!)?.[1] ?? 'no name'),
    text: body!
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  }));
}

describe("the tracker's order cards", () => {
  it('a card per stage-gated part the order lists, in its order: the known ones and any newer one, each saying whether and from when', () => {
    const html = renderToStaticMarkup(<OrderParts order={order()} index={0} complete errors={[]} onRetry={() => undefined} />);
    const gated = cards(html).filter((card) => card.gated);
    expect(gated.map((card) => card.field)).toEqual([...Object.keys(AVAILABLE_FROM), 'deliveryWindow', 'handoverSlot', 'returnPolicy']);
    const deliveryWindow = gated.find((card) => card.field === 'deliveryWindow')!.text;
    expect(deliveryWindow).toMatch(/^Delivery window , OC-TESTS /);
    expect(deliveryWindow).toContain('Deposit $100.00');
    expect(deliveryWindow).toContain('Carrier Road freight');
    expect(deliveryWindow).toContain('Confirmed No');
    expect(gated.find((card) => card.field === 'handoverSlot')!.text).toBe(
      'Handover slot , OC-TESTS Available from the “Ready for pickup” stage.',
    );
    // Reached but not in the query: the page says it does not show it, not that there is none.
    expect(gated.find((card) => card.field === 'returnPolicy')!.text).toBe('Return policy , OC-TESTS Not shown on this page.');
    // The parts every order has, beside them.
    expect(
      cards(html)
        .filter((card) => !card.gated)
        .map((card) => card.field),
    ).toEqual(['order', 'payments', 'tradeIn']);
  });

  it("an OrderPart names its field: the stage table's by its upper case, a newer one by its words", () => {
    for (const field of Object.keys(AVAILABLE_FROM)) expect(partField(field.toUpperCase())).toBe(field);
    expect(partField('DELIVERY_WINDOW')).toBe('deliveryWindow');
    expect(gatedParts([{ part: 'DELIVERY_WINDOW', from: 'IN_TRANSIT', available: false }])).toEqual([
      { field: 'deliveryWindow', title: 'Delivery window', gate: { part: 'DELIVERY_WINDOW', from: 'IN_TRANSIT', available: false } },
    ]);
  });

  it('a value of any shape as labelled lines: money, times, enum values and flags in words, lists numbered, nulls left out', () => {
    expect(
      fieldLines({
        deposit: money('100.00'),
        carrier: 'ROAD_FREIGHT',
        code: 'BSB',
        confirmed: true,
        slots: [{ startsAt: '2026-12-01T09:00:00.000Z' }, { startsAt: null }],
        note: null,
      }),
    ).toEqual([
      ['Deposit', '$100.00'],
      ['Carrier', 'Road freight'],
      ['Code', 'BSB'],
      ['Confirmed', 'Yes'],
      ['Slots 1, starts at', new Date('2026-12-01T09:00:00.000Z').toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })],
    ]);
  });

  describe('each part in its state', () => {
    /** The vehicle (with a VIN), the pickup and the estimate as a stage-gated part each. */
    const vehicle = { vin: 'VCF1ZBU28PG123456', model: 'OC', modelYear: 2026, trim: null, exterior: null, interior: null, wheel: null };

    /** An order in `status` whose availability is `available` part by part (as the gateway answers it), with these parts' values. */
    function orderAt(status: string, available: Record<string, boolean>, values: Record<string, unknown>): TrackedOrder {
      return {
        id: 'order-2',
        reservationId: 'OC-PARTS',
        status,
        rawStatus: status === 'UNKNOWN' ? 'QUALITY_HOLD' : status,
        availability: Object.entries(AVAILABLE_FROM).map(([field, from]) => ({
          part: field.toUpperCase(),
          from,
          available: available[field],
        })),
        ...NOTHING_YET,
        ...values,
      } as unknown as TrackedOrder;
    }

    /** The API's error for one field of the first order. */
    const failure = (field: string, code: string): OrderGraphError => ({
      message: `${field} failed`,
      path: ['me', 'orders', 0, field],
      extensions: { code, operation: 'someOperation', upstreamStatus: 500 },
    });

    const render = (order: TrackedOrder, errors: OrderGraphError[] = []) =>
      Object.fromEntries(
        cards(renderToStaticMarkup(<OrderParts order={order} index={0} complete errors={errors} onRetry={() => undefined} />)).map(
          (card) => [card.field!, card] as const,
        ),
      );

    // ORDER_CONFIRMED: the estimate's stage reached, the vehicle's and the pickup's not.
    const confirmed = { estimate: true, vehicle: false, pickup: false };

    it('a failed part says it failed, in plain words, with a retry: before its stage too, never "Available from"', () => {
      // A 500 on the vehicle's call before its stage, and the estimate's call timed out.
      const shown = render(orderAt('ORDER_CONFIRMED', confirmed, {}), [
        failure('vehicle', 'UPSTREAM_ERROR'),
        failure('estimate', 'UPSTREAM_TIMEOUT'),
      ]);
      expect(shown.vehicle).toMatchObject({
        state: 'failed',
        text: 'Vehicle , OC-PARTS Could not be loaded: the order service had a problem. Try again',
        buttons: ['Try again: Vehicle, OC-PARTS'],
      });
      expect(shown.estimate).toMatchObject({
        state: 'failed',
        text: 'Price , OC-PARTS Could not be loaded: the order service took too long to answer. Try again',
        buttons: ['Try again: Price, OC-PARTS'],
      });
      // Nothing failed for the pickup: its stage is still to come.
      expect(shown.pickup).toMatchObject({
        state: 'absent',
        text: 'Pickup , OC-PARTS Available from the “In transit” stage.',
        buttons: [],
      });
      // The code is the API's, the words the customer's: no code, operation or status on the page.
      expect(
        Object.values(shown)
          .map(({ text }) => text)
          .join(' '),
      ).not.toMatch(/UPSTREAM|someOperation|500|failed/);
    });

    it("a failed part's retry asks for the order again", () => {
      let retries = 0;
      const element = Part({
        title: 'Vehicle',
        orderId: 'order-2',
        orderName: 'OC-PARTS',
        field: 'vehicle',
        gated: true,
        arrived: true,
        complete: true,
        errors: [failure('vehicle', 'RATE_LIMITED')],
        empty: 'No vehicle assigned yet.',
        onRetry: () => retries++,
        children: null,
      });
      const button = find(element, (node) => node.type === 'button');
      expect(button.props).toMatchObject({ type: 'button' });
      (button.props as { onClick: () => void }).onClick();
      expect(retries).toBe(1);
    });

    it('a part before its stage with nothing failed: available from that stage (or never, when cancelled), no retry', () => {
      const shown = render(orderAt('ORDER_CONFIRMED', confirmed, { estimate: null }));
      expect(shown.vehicle).toMatchObject({
        state: 'absent',
        text: 'Vehicle , OC-PARTS Available from the “In production” stage.',
        buttons: [],
      });
      expect(shown.pickup).toMatchObject({
        state: 'absent',
        text: 'Pickup , OC-PARTS Available from the “In transit” stage.',
        buttons: [],
      });
      // Reached, and none: its own words.
      expect(shown.estimate).toMatchObject({ state: 'absent', text: 'Price , OC-PARTS No price estimate yet.', buttons: [] });
      const cancelled = render(orderAt('CANCELLED', { estimate: false, vehicle: false, pickup: false }, {}), [
        failure('pickup', 'UPSTREAM_ERROR'),
      ]);
      expect(cancelled.vehicle).toMatchObject({ state: 'absent', text: 'Vehicle , OC-PARTS Not for a cancelled order.' });
      // A failure is said even for a cancelled order: the page does not guess it away.
      expect(cancelled.pickup).toMatchObject({ state: 'failed', buttons: ['Try again: Pickup, OC-PARTS'] });
    });

    it('a part that is there is shown, whatever available says', () => {
      const shown = render(orderAt('ORDER_CONFIRMED', confirmed, { vehicle }));
      expect(shown.vehicle).toMatchObject({ state: 'shown', buttons: [] });
      expect(shown.vehicle!.text).toContain('VIN VCF1ZBU28PG123456');
      expect(shown.vehicle!.text).not.toMatch(/Available from|Could not/);
    });

    it('an order in a status the API does not know (UNKNOWN): every part may come, so none says from which stage; a failed one says it failed', () => {
      // As the gateway answers it: every part available (the stage cannot be placed), the vehicle there.
      const order = orderAt('UNKNOWN', { estimate: true, vehicle: true, pickup: true }, { vehicle });
      const shown = render(order, [failure('estimate', 'UPSTREAM_ERROR')]);
      expect(shown.vehicle).toMatchObject({ state: 'shown' });
      expect(shown.vehicle!.text).toContain('VIN VCF1ZBU28PG123456');
      expect(shown.pickup).toMatchObject({ state: 'absent', text: 'Pickup , OC-PARTS No pickup centre yet.', buttons: [] });
      expect(shown.estimate).toMatchObject({ state: 'failed', buttons: ['Try again: Price, OC-PARTS'] });
      expect(
        Object.values(shown)
          .map(({ text }) => text)
          .join(' '),
      ).not.toContain('Available from');
      const progress = renderToStaticMarkup(<Progress status="UNKNOWN" rawStatus="QUALITY_HOLD" />);
      expect(progress).toContain('This order is quality hold.');
      expect(progress).not.toContain('aria-current');
    });
  });
});

/** The first element in a tree of React elements that `match` takes. */
function find(node: ReactNode, match: (element: ReactElement) => boolean): ReactElement {
  const queue: ReactNode[] = [node];
  while (queue.length > 0) {
    const next = queue.shift();
    if (Array.isArray(next)) queue.push(...(next as ReactNode[]));
    else if (isValidElement(next)) {
      if (match(next)) return next;
      queue.push((next.props as { children?: ReactNode }).children);
    }
  }
  throw new Error('no such element');
}
