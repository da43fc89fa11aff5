// The page's cards from an order, rendered to HTML: a card per stage-gated part the order's
// availability lists, whatever the part, and one per other object or list the page's query
// selects on Order (read here from the schema and the query's text: schema-order.ts), one
// without a view of its own laid out from its data; each part shown, failed (with a retry),
// not reached yet or none, whatever the order's status.
import { isValidElement, type ReactElement, type ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { AVAILABLE_FROM, ORDER_STAGES, type OrderGraphError } from '@order-graph/client';
import { OrderParts, Progress } from '../src/order-card';
import { Part } from '../src/part';
import { fieldWords } from '../src/format';
import { AnyValue, PART_VIEWS } from '../src/part-views';
import { orderCards, partField } from '../src/parts';
import { SHOWN_ELSEWHERE } from '../src/query';
import type { TrackedOrder } from '../src/tracked-order';
import { schemaOrder, SELECTED_PARTS } from './schema-order';

/** The Order fields that are stage-gated (the SDK's stage table), in its order. */
const GATED = Object.keys(AVAILABLE_FROM);

const money = (amount: string) => ({ amount, currencyCode: 'USD' });

/** An order's fields with nothing in them yet: each test's order sets what it needs. */
const NOTHING_YET = { updatedAt: null, delivered: false, product: null, configuration: null, vehicle: null, pickup: null, estimate: null };

/** The API's error for one field of the first order. */
const failure = (field: string, code: string): OrderGraphError => ({
  message: `${field} failed`,
  path: ['me', 'orders', 0, field],
  extensions: { code, operation: 'someOperation', upstreamStatus: 500 },
});

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

/** Every stage-gated part reached, as the gateway lists them for a delivered order. */
const allReached = () => GATED.map((field) => ({ part: field.toUpperCase(), from: AVAILABLE_FROM[field as never], available: true }));

/** The parts the query selects that are neither stage-gated nor shown elsewhere (the history's timeline…): a card each, after the gated ones. */
const OTHER_PARTS = SELECTED_PARTS.filter((field) => !GATED.includes(field) && !SHOWN_ELSEWHERE.includes(field));

const renderCards = (order: TrackedOrder, errors: OrderGraphError[] = []) =>
  cards(renderToStaticMarkup(<OrderParts order={order} index={0} complete errors={errors} onRetry={() => undefined} />));

describe("the tracker's order cards", () => {
  it('a card per stage-gated part, then per other object or list the query selects on Order, each showing its value', () => {
    const shown = renderCards(schemaOrder('DELIVERED', allReached()) as unknown as TrackedOrder);
    expect(shown.map((card) => card.field)).toEqual(['order', ...GATED, ...OTHER_PARTS]);
    expect(shown.map((card) => [card.field, card.gated, card.state])).toEqual(
      shown.map((card) => [card.field, GATED.includes(card.field!), 'shown']),
    );
    // What has a place of its own is something the query selects, not a part left out.
    for (const field of SHOWN_ELSEWHERE) expect(SELECTED_PARTS).toContain(field);
  });

  it("a part with no view of its own is laid out from its data: each value under its field's name, a list item by item", () => {
    const order = schemaOrder('DELIVERED', allReached());
    const generic = OTHER_PARTS.filter((field) => !PART_VIEWS[field]);
    // The query selects one such part at least (else this test would prove nothing).
    expect(generic.length).toBeGreaterThan(0);
    const html = renderToStaticMarkup(
      <OrderParts order={order as unknown as TrackedOrder} index={0} complete errors={[]} onRetry={() => undefined} />,
    );
    for (const field of generic) {
      const card = cards(html).find((c) => c.field === field)!;
      expect(card.text.startsWith(`${fieldWords(field)} , OC-PARTS`)).toBe(true);
      const value = order[field as keyof typeof order];
      const items = Array.isArray(value) ? value : [value];
      const section = new RegExp(`<section[^>]*data-part="${field}"[\\s\\S]*?</section>`).exec(html)![0];
      // A list as a list of its items, each a label/value list.
      if (Array.isArray(value)) expect(section.match(/<li>/g)).toHaveLength(value.length);
      for (const item of items as Record<string, unknown>[])
        for (const [key, inner] of Object.entries(item)) {
          expect(card.text).toContain(fieldWords(key));
          if (typeof inner === 'string' && /^[a-z]/.test(inner)) expect(card.text).toContain(inner);
        }
    }
  });

  it("a newer API's stage-gated part: not reached, from when; reached but not in the query, not shown here", () => {
    const order = schemaOrder('IN_TRANSIT', [
      ...allReached(),
      { part: 'HANDOVER_SLOT', from: 'READY_FOR_PICKUP', available: false },
      { part: 'RETURN_POLICY', from: 'ORDER_CONFIRMED', available: true },
    ]) as unknown as TrackedOrder;
    const shown = renderCards(order);
    expect(shown.filter((card) => card.gated).map((card) => card.field)).toEqual([...GATED, 'handoverSlot', 'returnPolicy']);
    expect(shown.find((card) => card.field === 'handoverSlot')!.text).toBe(
      'Handover slot , OC-PARTS Available from the “Ready for pickup” stage.',
    );
    expect(shown.find((card) => card.field === 'returnPolicy')!.text).toBe('Return policy , OC-PARTS Not shown on this page.');
  });

  it("an OrderPart names its field: the stage table's by its upper case, a newer one by its words", () => {
    for (const field of GATED) expect(partField(field.toUpperCase())).toBe(field);
    expect(partField('DELIVERY_WINDOW')).toBe('deliveryWindow');
    expect(orderCards([{ part: 'DELIVERY_WINDOW', from: 'IN_TRANSIT', available: false }], [])).toEqual([
      {
        field: 'deliveryWindow',
        title: 'Delivery window',
        gate: { part: 'DELIVERY_WINDOW', from: 'IN_TRANSIT', available: false },
        selected: false,
      },
    ]);
  });

  it('a value of any shape: an object as labelled lines, a list as a list, money, times, enum values and flags in words', () => {
    const html = renderToStaticMarkup(
      <AnyValue
        value={{
          deposit: money('100.00'),
          carrier: 'ROAD_FREIGHT',
          code: 'BSB',
          confirmed: true,
          slots: [{ startsAt: '2026-12-01T09:00:00.000Z' }, { startsAt: null }],
          notes: [],
        }}
      />,
    );
    const at = new Date('2026-12-01T09:00:00.000Z').toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
    expect(html).toBe(
      '<dl>' +
        '<div class="row"><dt>Deposit</dt><dd>$100.00</dd></div>' +
        '<div class="row"><dt>Carrier</dt><dd>Road freight</dd></div>' +
        '<div class="row"><dt>Code</dt><dd>BSB</dd></div>' +
        '<div class="row"><dt>Confirmed</dt><dd>Yes</dd></div>' +
        `<div class="row"><dt>Slots</dt><dd><ul class="plain items"><li><dl><div class="row"><dt>Starts at</dt><dd>${at}</dd></div></dl></li>` +
        '<li><dl><div class="row"><dt>Starts at</dt><dd>—</dd></div></dl></li></ul></dd></div>' +
        '<div class="row"><dt>Notes</dt><dd>None</dd></div>' +
        '</dl>',
    );
  });

  it('every part that failed says so with a retry, a part without a stage as one with', () => {
    for (const { field, title } of orderCards(allReached())) {
      const order = schemaOrder('DELIVERED', allReached(), { [field]: null }) as unknown as TrackedOrder;
      const card = renderCards(order, [failure(field, 'UPSTREAM_ERROR')]).find((c) => c.field === field)!;
      const name = PART_VIEWS[field]?.title ?? title;
      expect([field, card.state, card.buttons]).toEqual([field, 'failed', [`Try again: ${name}, OC-PARTS`]]);
    }
    // Each part is asked after: the non-gated ones too.
    expect(orderCards(allReached()).map(({ field }) => field)).toEqual([...GATED, ...OTHER_PARTS]);
  });

  describe('each part in its state', () => {
    /** The vehicle (with a VIN), the pickup and the estimate as a stage-gated part each. */
    const vehicle = { vin: 'VCF1ZBU28PG123456', model: 'OC', modelYear: 2026, trim: null, exterior: null, interior: null, wheel: null };

    /** Whether a part of this stage can have a value at `status`, as the SDL says: reached, or a status the API does not know. */
    const canHave = (status: string, from: string) =>
      status === 'UNKNOWN' ||
      ((ORDER_STAGES as readonly string[]).includes(status) &&
        ORDER_STAGES.indexOf(status as never) >= ORDER_STAGES.indexOf(from as never));

    /** An order in `status` with its availability part by part as the gateway answers it, and these parts' values. */
    function orderAt(status: string, values: Record<string, unknown>): TrackedOrder {
      return {
        id: 'order-2',
        reservationId: 'OC-PARTS',
        status,
        rawStatus: status === 'UNKNOWN' ? 'QUALITY_HOLD' : status,
        availability: Object.entries(AVAILABLE_FROM).map(([field, from]) => ({
          part: field.toUpperCase(),
          from,
          available: canHave(status, from),
        })),
        ...NOTHING_YET,
        ...values,
      } as unknown as TrackedOrder;
    }

    const render = (order: TrackedOrder, errors: OrderGraphError[] = []) =>
      Object.fromEntries(
        cards(renderToStaticMarkup(<OrderParts order={order} index={0} complete errors={errors} onRetry={() => undefined} />)).map(
          (card) => [card.field!, card] as const,
        ),
      );

    it('a failed part says it failed, in plain words, with a retry: before its stage too, never "Available from"', () => {
      // A 500 on the vehicle's call before its stage, and the estimate's call timed out.
      const shown = render(orderAt('ORDER_CONFIRMED', {}), [failure('vehicle', 'UPSTREAM_ERROR'), failure('estimate', 'UPSTREAM_TIMEOUT')]);
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
      const shown = render(orderAt('ORDER_CONFIRMED', { estimate: null }));
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
      const cancelled = render(orderAt('CANCELLED', {}), [failure('pickup', 'UPSTREAM_ERROR')]);
      expect(cancelled.vehicle).toMatchObject({ state: 'absent', text: 'Vehicle , OC-PARTS Not for a cancelled order.' });
      // A failure is said even for a cancelled order: the page does not guess it away.
      expect(cancelled.pickup).toMatchObject({ state: 'failed', buttons: ['Try again: Pickup, OC-PARTS'] });
    });

    it('a part that is there is shown, whatever available says', () => {
      const shown = render(orderAt('ORDER_CONFIRMED', { vehicle }));
      expect(shown.vehicle).toMatchObject({ state: 'shown', buttons: [] });
      expect(shown.vehicle!.text).toContain('VIN VCF1ZBU28PG123456');
      expect(shown.vehicle!.text).not.toMatch(/Available from|Could not/);
    });

    it('each code with its words where the gateway has them, as itself where it has none', () => {
      const labelled = {
        ...vehicle,
        modelLabel: 'Ocean',
        trim: 'O1',
        trimLabel: 'One',
        exterior: 'BSB',
        exteriorLabel: 'Big Sur Blue',
        interior: 'BL',
        interiorLabel: null,
        wheel: 'F3B',
        wheelLabel: '22-inch Black',
      };
      const order = orderAt('READY_FOR_PICKUP', {
        vehicle: labelled,
        product: { model: 'OCEAN', modelLabel: 'Ocean', trim: 'ONE', trimLabel: null },
        configuration: {
          exterior: 'MWH',
          exteriorLabel: 'Mammoth White',
          interior: 'GR',
          interiorLabel: 'Grey',
          wheel: 'F2A',
          wheelLabel: null,
        },
      });
      const shown = render(order);
      expect(shown.vehicle!.text).toContain(
        'Model Ocean (OC) Trim One (O1) Exterior Big Sur Blue (BSB) Interior BL Wheels 22-inch Black (F3B)',
      );
      expect(shown.order!.text).toContain('Model Ocean (OCEAN) Trim ONE Exterior Mammoth White (MWH) Interior Grey (GR) Wheels F2A');
    });

    it("the price's credits each once, taken off: the trade-in's credit is its TRADE_IN_CREDIT line, not a row of its own", () => {
      // The simulator's ready order: 68,999 + 3,035 fees + 6,801.59 taxes − 18,500 − 1,000 credits = 59,335.59.
      const line = (code: string, description: string, amount: string) => ({ code, description, amount: money(amount) });
      const estimate = {
        ...((schemaOrder('ORDER_CONFIRMED', []) as Record<string, unknown>).estimate as object),
        credits: [
          line('TRADE_IN_CREDIT', 'Trade-in net credit (2018 Audi Q5)', '18500.00'),
          line('REFERRAL_CREDIT', 'Referral credit', '1000.00'),
        ],
        tradeInCredit: money('18500.00'),
        total: money('59335.59'),
      };
      const text = render(orderAt('ORDER_CONFIRMED', { estimate })).estimate!.text;
      expect(text.match(/18,500\.00/g)).toEqual(['18,500.00']);
      expect(text).toContain('Trade-in net credit (2018 Audi Q5) −$18,500.00');
      expect(text).toContain('Referral credit −$1,000.00');
      expect(text).not.toContain('Trade-in credit');
    });

    it('an order in a status the API does not know (UNKNOWN): every part may come, so none says from which stage; a failed one says it failed', () => {
      // As the gateway answers it: every part available (the stage cannot be placed), the vehicle there.
      const order = orderAt('UNKNOWN', { vehicle });
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
