// The simulator's faults as the gateway must answer them: the code of each, and the Order
// fields each per-order operation serves, the Customer fields each customer-level one (what a
// fault on it nulls).
import { CUSTOMER_FIELD_OPERATIONS, ORDER_FIELD_OPERATIONS } from '../../src/graph/order-fields.js';
import type { FaultMode } from '../../src/simulator/server.js';
import type { OperationName } from '../../src/upstream/contract.js';

/** The code a field gets when its upstream call meets each fault (the error table). */
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

type OrderField = keyof typeof ORDER_FIELD_OPERATIONS;

/** The Order fields each per-order operation serves: what a fault on it must null. */
export const ORDER_FIELDS_OF: Partial<Record<OperationName, OrderField[]>> = {};
for (const [field, operation] of Object.entries(ORDER_FIELD_OPERATIONS) as [OrderField, OperationName][]) {
  (ORDER_FIELDS_OF[operation] ??= []).push(field);
}

/** The Customer fields each customer-level operation serves: what a fault on it must null. */
export const CUSTOMER_FIELDS_OF: Partial<Record<OperationName, string[]>> = {};
for (const [field, operation] of Object.entries(CUSTOMER_FIELD_OPERATIONS)) (CUSTOMER_FIELDS_OF[operation] ??= []).push(field);
