// An order's changes as a live event names them (src/graph/order-changes.ts): each changed
// field as the Order fields show it, unknown statuses, and nested objects that go away.
import { describe, expect, it } from 'vitest';
import { orderChanges, orderFieldValues } from '../../src/graph/order-changes.js';
import type { Order } from '../../src/upstream/models.js';

const order: Order = {
  id: 'o1',
  reservationId: 'RN1',
  userId: 'u1',
  status: 'IN_PRODUCTION',
  updatedAt: '2026-11-01T10:00:00Z',
  vehicleDelivered: false,
  product: { model: 'Model Y', trim: 'LR', currencyCode: 'USD', msrp: 49990 },
  configuration: { exterior: 'WHITE' },
};

describe('orderChanges', () => {
  it('names each changed field as the Order fields show it: enums, DateTimes, money as "amount currency", nested as product.msrp', () => {
    const before = orderFieldValues(order);
    const after = orderFieldValues({
      ...order,
      status: 'READY_FOR_PICKUP',
      updatedAt: '2026-11-02T09:30:00Z',
      vehicleDelivered: true,
      product: { ...order.product, msrp: '51990.5' },
    });
    expect(orderChanges(before, after)).toEqual([
      { field: 'status', from: 'IN_PRODUCTION', to: 'READY_FOR_PICKUP' },
      { field: 'rawStatus', from: 'IN_PRODUCTION', to: 'READY_FOR_PICKUP' },
      { field: 'updatedAt', from: '2026-11-01T10:00:00.000Z', to: '2026-11-02T09:30:00.000Z' },
      { field: 'delivered', from: 'false', to: 'true' },
      { field: 'product.msrp', from: '49990.00 USD', to: '51990.50 USD' },
    ]);
  });

  it('a status the contract does not know is UNKNOWN with its raw value; no change, no entry', () => {
    const before = orderFieldValues(order);
    expect(orderChanges(before, orderFieldValues({ ...order }))).toEqual([]);
    expect(orderChanges(before, orderFieldValues({ ...order, status: 'QUALITY_HOLD' }))).toEqual([
      { field: 'status', from: 'IN_PRODUCTION', to: 'UNKNOWN' },
      { field: 'rawStatus', from: 'IN_PRODUCTION', to: 'QUALITY_HOLD' },
    ]);
  });

  it('a nested object that goes away: each of its fields goes to null', () => {
    const changes = orderChanges(orderFieldValues(order), orderFieldValues({ ...order, configuration: null }));
    expect(changes).toEqual([{ field: 'configuration.exterior', from: 'WHITE', to: null }]);
  });
});
