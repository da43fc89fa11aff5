import type { OrderStatus } from './__generated__/resolvers-types.js';

/** The order stages in the order they happen (DESIGN §3); CANCELLED and UNKNOWN are outside it. */
export const ORDER_STAGES = [
  'RESERVED',
  'ORDER_PENDING_PAYMENT',
  'ORDER_CONFIRMED',
  'BUILD_LOCKED',
  'IN_PRODUCTION',
  'IN_TRANSIT',
  'READY_FOR_PICKUP',
  'DELIVERED',
] as const satisfies readonly OrderStatus[];

/** Every status the upstream is known to send; anything else is UNKNOWN. */
export const KNOWN_ORDER_STATUSES = [...ORDER_STAGES, 'CANCELLED'] as const satisfies readonly OrderStatus[];
