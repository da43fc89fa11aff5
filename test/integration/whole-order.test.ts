import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { AVAILABLE_FROM, ORDER_FIELD_OPERATIONS } from '../../src/graph/order-fields.js';
import type { SeedData } from '../../src/simulator/server.js';
import { isActiveAt } from '../../src/upstream/contract.js';
import type { Address, PostalAddress, UpstreamMoney } from '../../src/upstream/models.js';
import { callCounts, execute, startHarness, type Harness } from '../helpers/harness.js';

// What the gateway should make of the simulator's data, written out field by field.
// Amounts in the seed data have at most two decimals, so toFixed(2) is exact here.
const decimal = (value: UpstreamMoney) => Number(value).toFixed(2);
const money = (value: UpstreamMoney | null | undefined, currencyCode: string | null | undefined) =>
  value === null || value === undefined || !currencyCode ? null : { amount: decimal(value), currencyCode };
const iso = (value: string | null | undefined) => (value ? new Date(value).toISOString() : null);

const postal = (address: PostalAddress | null | undefined) =>
  address
    ? {
        id: null,
        line1: address.address1 ?? null,
        line2: address.address2 ?? null,
        city: address.city ?? null,
        region: address.region ?? null,
        postalCode: address.zipcode ?? null,
        country: address.country ?? null,
        type: null,
        primary: null,
        validated: null,
      }
    : null;
const orderAddress = (address: Address) => ({
  ...postal(address),
  id: address.id,
  type: address.addressType ?? null,
  primary: address.primary ?? null,
  validated: address.validated ?? null,
});

// Which stages a field answers at: the contract's x-active-from (checked against the YAML in contract.test.ts).
const active = (field: keyof typeof AVAILABLE_FROM, status: string) => isActiveAt(ORDER_FIELD_OPERATIONS[field], status);

function expectedOrder(data: SeedData, orderId: string) {
  const order = data.orders.find((o) => o.id === orderId)!;
  const currency = order.product?.currencyCode;
  const vehicle = data.vehicleDetails.find((v) => v.orderId === order.id);
  const pickup = data.pickupCenters.find((p) => p.orderId === order.id);
  const estimate = data.estimates.find((e) => e.orderId === order.id);
  const addresses = data.addresses.filter((a) => a.orderId === order.id);
  const delivery = addresses.filter((a) => a.addressType === 'DELIVERY');
  const shipping = delivery.find((a) => a.primary) ?? delivery[0];
  const tradeIn = data.tradeIns.find((t) => t.reservationId === order.reservationId);
  const lines = (items: Array<{ code: string; description?: string | null; amount: UpstreamMoney }> | null | undefined, c: string) =>
    (items ?? []).map((line) => ({ code: line.code, description: line.description ?? null, amount: money(line.amount, c) }));
  return {
    id: order.id,
    reservationId: order.reservationId,
    status: order.status,
    rawStatus: order.status,
    createdAt: iso(order.createdAt),
    updatedAt: iso(order.updatedAt),
    cancelledAt: iso(order.cancelledAt),
    completedAt: iso(order.completedAt),
    buildEditableUntil: iso(order.editBuildExpirationDate),
    delivered: order.vehicleDelivered === true,
    product: order.product && {
      model: order.product.model ?? null,
      trim: order.product.trim ?? null,
      country: order.product.country ?? null,
      msrp: money(order.product.msrp, currency),
      preorderFee: money(order.product.preorderFee, currency),
      deliveryFees: money(order.product.deliveryFees, currency),
    },
    configuration: order.configuration && {
      exterior: order.configuration.exterior ?? null,
      interior: order.configuration.interior ?? null,
      wheel: order.configuration.wheel ?? null,
      trim: order.configuration.trim ?? null,
    },
    vehicle:
      active('vehicle', order.status) && vehicle
        ? {
            vin: vehicle.vin,
            model: vehicle.model,
            modelYear: vehicle.modelYear ? Number(vehicle.modelYear) : null,
            trim: vehicle.trim ?? null,
            exterior: vehicle.exterior ?? null,
            interior: vehicle.interior ?? null,
            wheel: vehicle.wheel ?? null,
            salesCountry: vehicle.salesCountry ?? null,
            digitalId: vehicle.digitalId ?? null,
            lastUpdatedAt: iso(vehicle.lastUpdatedAt),
          }
        : null,
    pickup:
      active('pickup', order.status) && pickup
        ? {
            locationId: pickup.centerPlusLocationId,
            name: pickup.name,
            address: postal(pickup.address),
            latitude: pickup.latitude ?? null,
            longitude: pickup.longitude ?? null,
            timeZone: pickup.timeZone ?? null,
            distance: pickup.distance ? { value: pickup.distance.value, unit: pickup.distance.unit?.toUpperCase() } : null,
            phone: pickup.phone ?? null,
            email: pickup.email ?? null,
            available: pickup.pickupAvailable ?? null,
            earliestPickupDate: pickup.earliestPickupDate ?? null,
          }
        : null,
    estimate:
      active('estimate', order.status) && estimate
        ? {
            vehiclePrice: money(estimate.vehiclePrice, estimate.currencyCode),
            optionsTotal: money(estimate.optionsTotal, estimate.currencyCode),
            fees: lines(estimate.fees, estimate.currencyCode),
            feesTotal: money(estimate.feesTotal, estimate.currencyCode),
            taxes: (estimate.taxes ?? []).map((tax) => ({
              code: tax.code,
              description: tax.description ?? null,
              rate: tax.rate ?? null,
              taxableAmount: money(tax.taxableAmount, estimate.currencyCode),
              amount: money(tax.amount, estimate.currencyCode),
            })),
            taxTotal: money(estimate.taxTotal, estimate.currencyCode),
            credits: lines(estimate.credits, estimate.currencyCode),
            tradeInCredit: money(estimate.tradeInCredit, estimate.currencyCode),
            total: money(estimate.total, estimate.currencyCode),
            paidTotal: money(estimate.paidTotal, estimate.currencyCode),
            amountDue: money(estimate.amountDue, estimate.currencyCode),
            isEstimate: estimate.isEstimate ?? null,
            calculatedAt: iso(estimate.calculatedAt),
          }
        : null,
    shippingAddress: shipping ? orderAddress(shipping) : null,
    addresses: addresses.map(orderAddress),
    payments: data.payments
      .filter((p) => p.orderId === order.id && p.feeType === 'ORDER_FEE')
      .map((p) => ({
        id: p.id,
        feeType: 'ORDER_FEE',
        amount: money(p.amount, p.currencyCode),
        status: p.status,
        method: p.paymentMethod ?? null,
        card: p.card ? { brand: p.card.brand ?? null, last4: p.card.last4 ?? null, expiryDate: p.card.expiryDate ?? null } : null,
        refundable: p.refundable ?? null,
        paidAt: iso(p.paidAt),
        createdAt: iso(p.createdAt),
      })),
    tradeIn: tradeIn
      ? {
          id: tradeIn.id,
          status: tradeIn.status,
          partner: tradeIn.partner ?? null,
          partnerReferenceId: tradeIn.partnerReferenceId ?? null,
          vehicle: tradeIn.vehicle && {
            vin: tradeIn.vehicle.vin ?? null,
            year: tradeIn.vehicle.year ?? null,
            make: tradeIn.vehicle.make ?? null,
            model: tradeIn.vehicle.model ?? null,
            trim: tradeIn.vehicle.trim ?? null,
            mileage: tradeIn.vehicle.mileage ?? null,
            mileageUnit: tradeIn.vehicle.mileageUnit?.toUpperCase() ?? null,
            condition: tradeIn.vehicle.condition ?? null,
          },
          offer: tradeIn.offer ? { amount: money(tradeIn.offer.amount, tradeIn.offer.currencyCode), expiresAt: iso(tradeIn.offer.expiresAt) } : null,
          payoffAmount: money(tradeIn.payoff?.amount, tradeIn.offer?.currencyCode ?? currency),
          lienHolder: tradeIn.payoff?.lienHolder ?? null,
          netCredit: money(tradeIn.netCredit, tradeIn.offer?.currencyCode ?? currency),
        }
      : null,
  };
}

const PER_ORDER_OPERATIONS = [...new Set(Object.values(ORDER_FIELD_OPERATIONS))];

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

describe('the whole-order query, for every seeded customer', () => {
  it('covers the stages the docs promise: early, confirmed, in production, ready with a trade-in, two orders', () => {
    const statuses = harness.simulator.data.orders.map((o) => o.status);
    expect(statuses).toEqual(expect.arrayContaining(['RESERVED', 'ORDER_CONFIRMED', 'IN_PRODUCTION', 'READY_FOR_PICKUP']));
    const perUser = new Map<string, number>();
    for (const o of harness.simulator.data.orders) perUser.set(o.userId, (perUser.get(o.userId) ?? 0) + 1);
    expect([...perUser.values()]).toContain(2);
    expect(harness.simulator.data.tradeIns.length).toBeGreaterThan(0);
  });

  it.each(['early', 'confirmed', 'production', 'ready', 'two-orders', 'cancelled', 'no-orders'])(
    '%s@demo.test: every field as the simulator holds it, the expected errors, 2 + 6 × orders upstream calls',
    async (name) => {
      const username = `${name}@demo.test`;
      const { simulator } = harness;
      const customer = simulator.customers.find((c) => c.username === username)!;
      const token = await harness.login(username);
      simulator.clearLog();

      const { data, errors } = await execute(harness.client(token), WholeOrderDocument);

      const seed = simulator.data;
      const user = seed.users.find((u) => u.user.id === customer.userId)!.user;
      const orders = seed.orders.filter((o) => o.userId === customer.userId);
      expect(data?.me).toEqual({
        id: user.id,
        email: user.email ?? null,
        emailVerified: user.emailVerified ?? null,
        firstName: user.firstName ?? null,
        lastName: user.lastName ?? null,
        phoneNumber: user.phoneNumber ?? null,
        country: user.country ?? null,
        locale: user.locale ?? null,
        createdAt: iso(user.createdAt),
        address: postal(user.address),
        orders: orders.map((o) => expectedOrder(seed, o.id)),
      });

      // Stage-bound fields before their stage: NOT_AVAILABLE, with the operation and the path.
      const expectedErrors = orders.flatMap((order, index) =>
        (Object.keys(AVAILABLE_FROM) as (keyof typeof AVAILABLE_FROM)[])
          .filter((field) => !active(field, order.status))
          .map((field) => ({ path: ['me', 'orders', index, field], code: 'NOT_AVAILABLE', operation: ORDER_FIELD_OPERATIONS[field], upstreamStatus: 409 })),
      );
      const byPath = (a: { path?: unknown }, b: { path?: unknown }) => JSON.stringify(a.path).localeCompare(JSON.stringify(b.path));
      expect(
        errors.map((e) => ({ path: e.path, code: e.extensions?.code, operation: e.extensions?.operation, upstreamStatus: e.extensions?.upstreamStatus })).sort(byPath),
      ).toEqual(expectedErrors.sort(byPath));

      const perOrder = orders.length;
      const expectedCounts: Record<string, number> = { customerDetails: 1, orderDetails: 1 };
      if (perOrder > 0) for (const op of PER_ORDER_OPERATIONS) expectedCounts[op] = perOrder;
      expect(callCounts(simulator)).toEqual(expectedCounts);
      expect(simulator.requestLog.every((entry) => entry.bearer === token)).toBe(true);
    },
  );

  it('the ready customer sees everything: VIN, pickup centre, estimate, trade-in, the primary delivery address', async () => {
    const token = await harness.login('ready@demo.test');
    const { data, errors } = await execute(harness.client(token), WholeOrderDocument);
    expect(errors).toEqual([]);
    const order = data!.me!.orders![0]!;
    expect(order.vehicle?.vin).toMatch(/^[A-HJ-NPR-Z0-9]{17}$/);
    expect(order.pickup?.name).toBeTruthy();
    expect(order.estimate?.amountDue.amount).toMatch(/^-?\d+\.\d{2}$/);
    expect(order.tradeIn?.offer?.amount.amount).toMatch(/^\d+\.\d{2}$/);
    expect(order.shippingAddress?.primary).toBe(true);
    expect(order.shippingAddress?.type).toBe('DELIVERY');
    // The simulator lists a non-primary delivery address first.
    expect(order.addresses?.[0]?.id).not.toBe(order.shippingAddress?.id);
    expect(order.payments?.map((p) => p.status).sort()).toEqual(['REFUNDED', 'SUCCEEDED']);
  });

  it('the two upstream waves: the per-order calls start only after /auth/me and the order list, which start together', async () => {
    const { simulator } = harness;
    const token = await harness.login('ready@demo.test');
    simulator.setLatency(200);
    simulator.clearLog();
    try {
      const { errors } = await execute(harness.client(token), WholeOrderDocument);
      expect(errors).toEqual([]);
      const at = (op: string) => simulator.requestLog.filter((e) => e.operation === op).map((e) => e.at);
      const firstWave = [...at('customerDetails'), ...at('orderDetails')];
      const secondWave = PER_ORDER_OPERATIONS.flatMap(at);
      expect(firstWave).toHaveLength(2);
      expect(secondWave).toHaveLength(6);
      // Each wave's calls overlap (they arrive within one upstream latency of each other);
      // the second wave arrives only after the first was answered.
      expect(Math.max(...firstWave) - Math.min(...firstWave)).toBeLessThan(150);
      expect(Math.max(...secondWave) - Math.min(...secondWave)).toBeLessThan(150);
      expect(Math.min(...secondWave) - Math.max(...firstWave)).toBeGreaterThanOrEqual(195);
    } finally {
      simulator.setLatency(0);
    }
  });
});
