// The page's cards from an order, rendered to HTML: a card per stage-gated part the order's
// availability lists, whatever the part (one newer than this build of the page shows
// generically, under its field's name), and a value of any shape written out line by line.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { AVAILABLE_FROM } from '@order-graph/client';
import { OrderParts } from '../src/order-card';
import { fieldLines, gatedParts, partField } from '../src/parts';
import type { TrackedOrder } from '../src/tracked-order';

const money = (amount: string) => ({ amount, currencyCode: 'USD' });

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
    updatedAt: null,
    delivered: false,
    product: null,
    configuration: null,
    vehicle: null,
    pickup: null,
    estimate: null,
    deliveryWindow: { opensAt: '2026-12-01T09:00:00.000Z', deposit: money('100.00'), carrier: 'ROAD_FREIGHT', confirmed: false },
  } as unknown as TrackedOrder;
}

/** The rendered cards: each part's field, whether it is gated, and its text. */
function cards(html: string) {
  const found = [...html.matchAll(/<section class="part"[^>]*data-part="([^"]+)"([^>]*)>([\s\S]*?)<\/section>/g)];
  return found.map(([, field, attributes, body]) => ({
    field,
    gated: attributes!.includes('data-gated'),
    text: body!
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  }));
}

describe("the tracker's order cards", () => {
  it('a card per stage-gated part the order lists, in its order: the known ones and any newer one, each saying whether and from when', () => {
    const html = renderToStaticMarkup(<OrderParts order={order()} index={0} complete errors={[]} />);
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
});
