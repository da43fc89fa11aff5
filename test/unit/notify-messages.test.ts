// What a notification says (src/notify/messages.ts): the title, each change with its codes'
// labels from the simulator's own table (an unknown code as itself), the bounds on what the
// upstream can make grow, and the idempotency keys.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CODE_KINDS, NO_CODE_LABELS, parseCodeLabels } from '../../src/graph/code-labels.js';
import { changeKey, changeLine, messageForChange, messageForDisabled, messageForEnded, messageForTest } from '../../src/notify/messages.js';

const SIMULATOR_LABELS = readFileSync(new URL('../../src/simulator/code-labels.json', import.meta.url), 'utf8');
const labels = parseCodeLabels(SIMULATOR_LABELS);
const context = { labels, trackerUrl: 'https://orders.example.com/tracker/' };
const at = '2026-11-28T14:00:00.000Z';

/** The order field that carries each code kind (orderFieldValues' names). */
const FIELD_OF_KIND = {
  model: 'product.model',
  trim: 'product.trim',
  exterior: 'configuration.exterior',
  interior: 'configuration.interior',
  wheel: 'configuration.wheel',
} as const;

describe('a change as a line', () => {
  it('"Exterior: Mammoth White (MWH) → Big Sur Blue (BSB)": each code with its label', () => {
    expect(changeLine(labels, { field: 'configuration.exterior', from: 'MWH', to: 'BSB' })).toBe(
      'Exterior: Mammoth White (MWH) → Big Sur Blue (BSB)',
    );
  });

  it('every label of the simulator table is shown with its code, in every code field', () => {
    const table = JSON.parse(SIMULATOR_LABELS) as Record<string, Record<string, string>>;
    const shown: string[] = [];
    for (const kind of CODE_KINDS)
      for (const [code, label] of Object.entries(table[kind] ?? {})) {
        const line = changeLine(labels, { field: FIELD_OF_KIND[kind], from: null, to: code });
        expect(line).toMatch(new RegExp(`: none → ${label} \\(${code}\\)$`));
        shown.push(code);
      }
    expect(shown.length).toBe(Object.values(table).reduce((sum, codes) => sum + Object.keys(codes).length, 0));
    // configuration.trim is a trim code too.
    expect(changeLine(labels, { field: 'configuration.trim', from: 'O1', to: 'SPORT' })).toBe('Trim: One (O1) → Sport (SPORT)');
  });

  it('an unknown code, and any code without a table, as itself', () => {
    expect(changeLine(labels, { field: 'configuration.exterior', from: 'MWH', to: 'ZZZ' })).toBe('Exterior: Mammoth White (MWH) → ZZZ');
    expect(changeLine(NO_CODE_LABELS, { field: 'configuration.wheel', from: 'F2A', to: 'F3B' })).toBe('Wheels: F2A → F3B');
  });

  it('a stage in words, an unknown status and an unknown field as they came, a value past 120 characters cut', () => {
    expect(changeLine(labels, { field: 'status', from: 'IN_PRODUCTION', to: 'IN_TRANSIT' })).toBe('Stage: in production → in transit');
    expect(changeLine(labels, { field: 'status', from: 'DELIVERED', to: 'RECALLED' })).toBe('Stage: delivered → RECALLED');
    expect(changeLine(labels, { field: 'product.newThing', from: null, to: 'x' })).toBe('product.newThing: none → x');
    const line = changeLine(labels, { field: 'reservationId', from: null, to: 'R'.repeat(10_000) });
    expect(line).toBe(`Reservation: none → ${'R'.repeat(119)}…`);
  });
});

describe('the message of an order change', () => {
  const fields = { reservationId: 'RN123', status: 'IN_TRANSIT', rawStatus: 'IN_TRANSIT', 'configuration.exterior': 'BSB' };

  it('titles the order and its stage now, lists each change but the echoes, links the tracker', () => {
    const message = messageForChange(context, {
      customerId: 'cust-1',
      orderId: 'ord-1',
      fields,
      changes: [
        { field: 'status', from: 'IN_PRODUCTION', to: 'IN_TRANSIT' },
        { field: 'rawStatus', from: 'IN_PRODUCTION', to: 'IN_TRANSIT' },
        { field: 'updatedAt', from: '2026-11-27T10:00:00.000Z', to: '2026-11-28T14:00:00.000Z' },
        { field: 'configuration.exterior', from: 'MWH', to: 'BSB' },
      ],
      occurredAt: at,
    });
    expect(message).toMatchObject({
      kind: 'change',
      title: 'Order RN123: in transit',
      body: 'Stage: in production → in transit\nExterior: Mammoth White (MWH) → Big Sur Blue (BSB)',
      url: 'https://orders.example.com/tracker/',
      orderId: 'ord-1',
      occurredAt: at,
    });
    // The changes themselves go whole (the webhook's data), the echoes included.
    expect(message.changes).toHaveLength(4);
  });

  it('an order without a reservation is named by its id; a lone updatedAt change is shown', () => {
    const message = messageForChange(context, {
      customerId: 'cust-1',
      orderId: 'ord-9',
      fields: { status: null },
      changes: [{ field: 'updatedAt', from: null, to: at }],
      occurredAt: at,
    });
    expect(message.title).toBe('Order ord-9 changed');
    expect(message.body).toBe(`Updated: none → ${at}`);
  });

  it('lists 12 changes at most, then how many more', () => {
    const changes = Array.from({ length: 20 }, (_, i) => ({ field: `extra${i}`, from: null, to: String(i) }));
    const message = messageForChange(context, { customerId: 'c', orderId: 'o', fields, changes, occurredAt: at });
    const lines = message.body.split('\n');
    expect(lines).toHaveLength(13);
    expect(lines.at(-1)).toBe('and 8 more');
  });

  it('the key: the same for the same customer, order and fields in any order; different when any differs', () => {
    const key = changeKey('cust-1', 'ord-1', fields);
    expect(key).toMatch(/^chg_[A-Za-z0-9_-]{43}$/);
    const reordered = Object.fromEntries(Object.entries(fields).reverse());
    expect(changeKey('cust-1', 'ord-1', reordered)).toBe(key);
    expect(messageForChange(context, { customerId: 'cust-1', orderId: 'ord-1', fields: reordered, changes: [], occurredAt: at }).key).toBe(
      key,
    );
    expect(
      new Set([
        key,
        changeKey('cust-2', 'ord-1', fields),
        changeKey('cust-1', 'ord-2', fields),
        changeKey('cust-1', 'ord-1', { ...fields, status: 'DELIVERED' }),
      ]).size,
    ).toBe(4);
    // No confusion at a boundary: between the ids, between a value and the next field.
    expect(changeKey('a,b', 'c', fields)).not.toBe(changeKey('a', 'b,c', fields));
    expect(changeKey('c', 'o', { a: 'b,c' })).not.toBe(changeKey('c', 'o', { a: 'b', c: null }));
  });
});

describe('the other messages', () => {
  it('a test message has a new key each time', () => {
    const one = messageForTest(context, at);
    const two = messageForTest(context, at);
    expect(one).toMatchObject({ kind: 'test', title: 'Test notification', url: context.trackerUrl });
    expect(one.key).toMatch(/^test_[A-Za-z0-9_-]{22}$/);
    expect(one.key).not.toBe(two.key);
  });

  it('disabled: names the target that was turned off; the same disabling gives the same key', () => {
    const target = {
      id: 't1',
      channel: 'WEBHOOK' as const,
      description: 'https://hooks.example.com/order',
      failingSince: '2026-11-27T13:00:00.000Z',
    };
    const message = messageForDisabled(context, target, at);
    expect(message.kind).toBe('disabled');
    expect(message.body).toBe(
      'Your webhook https://hooks.example.com/order failed for a day and was turned off. Turn it on again on the tracker.',
    );
    expect(messageForDisabled(context, target, '2026-11-28T15:00:00.000Z').key).toBe(message.key);
    expect(messageForDisabled(context, { ...target, failingSince: at }, at).key).not.toBe(message.key);
  });

  it('ended: tells the customer to sign in again; its key is the customer’s and the session’s, whenever it is queued', () => {
    const message = messageForEnded(context, 'cust-1', 'v1.k1.session-a', at);
    expect(message).toMatchObject({ kind: 'ended', body: 'Notifications stopped: sign in again and turn them on.' });
    expect(message.key).toMatch(/^end_/);
    expect(messageForEnded(context, 'cust-1', 'v1.k1.session-a', '2026-11-28T16:00:00.000Z').key).toBe(message.key);
    expect(messageForEnded(context, 'cust-1', 'v1.k1.session-b', at).key).not.toBe(message.key);
    expect(messageForEnded(context, 'cust-2', 'v1.k1.session-a', at).key).not.toBe(message.key);
  });
});
