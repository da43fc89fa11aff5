import DataLoader from 'dataloader';
import type { Operations } from '../upstream/operations.js';

/** The one key of the caller's own resources (`/auth/me`, `/v2/order/user`). */
export const CALLER = 'caller';

/**
 * The upstream has no batch endpoints, so a "batch" is the distinct keys asked for in one
 * tick, fetched in parallel. Each key gets its value, null, or its own Error, in key order;
 * an Error is cached like a value, so a failed call is not repeated within the request.
 */
function perKey<K, V>(fetch: (key: K) => Promise<V>) {
  return (keys: readonly K[]): Promise<Array<V | Error>> =>
    Promise.all(
      keys.map(async (key) => {
        try {
          return await fetch(key);
        } catch (error) {
          return error instanceof Error ? error : new Error(String(error));
        }
      }),
    );
}

export interface VehicleKey {
  orderId: string;
  reservationId: string;
}
export interface PaymentsKey {
  orderId: string;
  feeType: string;
}

/**
 * One DataLoader per upstream operation, made per request from that request's operations
 * (and so its bearer): nothing they cache can reach another request.
 */
export function createLoaders(operations: Operations) {
  return {
    customer: new DataLoader(perKey((_: typeof CALLER) => operations.customerDetails())),
    orders: new DataLoader(perKey((_: typeof CALLER) => operations.orderDetails())),
    vehicle: new DataLoader(
      perKey(({ orderId, reservationId }: VehicleKey) => operations.vehicleProductionDetails(orderId, reservationId)),
      { cacheKeyFn: ({ orderId, reservationId }) => JSON.stringify([orderId, reservationId]) },
    ),
    pickup: new DataLoader(perKey((orderId: string) => operations.nearestPickupCenter(orderId))),
    estimate: new DataLoader(perKey((orderId: string) => operations.priceEstimate(orderId))),
    addresses: new DataLoader(perKey((orderId: string) => operations.shippingAddresses(orderId))),
    payments: new DataLoader(
      perKey(({ orderId, feeType }: PaymentsKey) => operations.orderPayments(orderId, feeType)),
      { cacheKeyFn: ({ orderId, feeType }) => JSON.stringify([orderId, feeType]) },
    ),
    tradeIn: new DataLoader(perKey((reservationId: string) => operations.tradeInDetails(reservationId))),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
