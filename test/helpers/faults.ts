import type { WholeOrderQuery } from '../../src/client/__generated__/graphql.js';
import type { FaultMode } from '../../src/simulator/server.js';
import type { OperationName } from '../../src/upstream/models.js';

/** The code a field gets when its upstream call meets each fault (DESIGN §4). */
export const CODE_OF_FAULT: Record<FaultMode | 'refused', string> = {
  '500': 'UPSTREAM_ERROR',
  hang: 'UPSTREAM_TIMEOUT',
  reset: 'UPSTREAM_ERROR',
  refused: 'UPSTREAM_ERROR',
  malformed: 'UPSTREAM_ERROR',
  html: 'UPSTREAM_ERROR',
  empty: 'UPSTREAM_ERROR',
  oversized: 'UPSTREAM_ERROR',
  slowdrip: 'UPSTREAM_TIMEOUT',
  '429': 'RATE_LIMITED',
};

type OrderField = keyof NonNullable<NonNullable<WholeOrderQuery['me']>['orders']>[number];

/** The Order fields each per-order operation serves: what a fault on it must null. */
export const ORDER_FIELDS_OF: Partial<Record<OperationName, OrderField[]>> = {
  vehicleProductionDetails: ['vehicle'],
  nearestPickupCenter: ['pickup'],
  priceEstimate: ['estimate'],
  shippingAddresses: ['shippingAddress', 'addresses'],
  orderPayments: ['payments'],
  tradeInDetails: ['tradeIn'],
};
