// The demo's moving order: production@demo.test's order takes its next stage on a timer (or
// when asked), with everything the stage rules derive from its status kept coherent, so the
// OrderUpdates subscription and `order --watch` have a change to show. No other order moves.
import type { Estimate, Order, PickupCenter } from '../upstream/models.js';
import type { SeedData } from './data.js';

/** The demo customer whose order moves. The others keep their seeded stage: tests and docs rely on them. */
export const MOVING_CUSTOMER = 'production@demo.test';

/**
 * The stages it goes through, from its seeded one. After DELIVERED it starts over at
 * IN_PRODUCTION (not realistic, but a demo that went quiet after three minutes would fail
 * whoever opens it later).
 */
export const MOVING_STAGES = ['IN_PRODUCTION', 'IN_TRANSIT', 'READY_FOR_PICKUP', 'DELIVERED'] as const;
export type MovingStage = (typeof MOVING_STAGES)[number];

/**
 * How often `npm start`'s embedded simulator and `npm run simulator` move it. npm start's
 * gateway polls the demo every 5 s: a first change shows within 65 s of the start.
 */
export const DEMO_ADVANCE_EVERY_MS = 60_000;

/** One move: whose order, from which stage to which, and when (its new updatedAt). */
export interface OrderMove {
  username: string;
  orderId: string;
  reservationId: string;
  from: string;
  to: MovingStage;
  at: string;
}

const DAY_MS = 86_400_000;
/** A date (no time), as the contract's earliestPickupDate takes it. */
const dateOnly = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The centre the order is picked up from once it ships (the one its centerPlusLocationId names). */
function austinCenter(orderId: string): PickupCenter {
  return {
    orderId,
    centerPlusLocationId: 'cp-aus-01',
    name: 'Center Plus Austin',
    address: { address1: '4301 S Congress Ave', address2: null, city: 'Austin', region: 'TX', zipcode: '78745', country: 'United States' },
    latitude: 30.2163,
    longitude: -97.7627,
    timeZone: 'America/Chicago',
    distance: { value: 3.4, unit: 'mi' },
    phone: '+15125550100',
    email: 'austin.centerplus@demo.test',
    pickupAvailable: false,
    earliestPickupDate: null,
  };
}

/** The records a move changes: the order, its estimate (as seeded, to start over from), and the simulator's lists. */
interface Moving {
  data: SeedData;
  order: Order;
  seededEstimate: Estimate | undefined;
}

/** Sets everything that follows from the order's stage: the order record, the vehicle's date, the pickup centre, the estimate. */
function applyStage({ data, order, seededEstimate }: Moving, stage: MovingStage, atMs: number) {
  const at = new Date(atMs).toISOString();
  const delivered = stage === 'DELIVERED';
  Object.assign(order, { status: stage, updatedAt: at, completedAt: delivered ? at : null, vehicleDelivered: delivered });

  // The vehicle record is touched with the order, as the seeded ones are (lastUpdatedAt = the order's updatedAt).
  const vehicle = data.vehicleDetails.find((candidate) => candidate.orderId === order.id);
  if (vehicle) vehicle.lastUpdatedAt = at;

  // Pickup answers from IN_TRANSIT (x-active-from): a centre that opens for pickup three days
  // after it ships, is ready when it is, and closes once it is delivered.
  const centerAt = data.pickupCenters.findIndex((candidate) => candidate.orderId === order.id);
  if (stage === 'IN_PRODUCTION') {
    if (centerAt >= 0) data.pickupCenters.splice(centerAt, 1);
  } else {
    const center = centerAt >= 0 ? data.pickupCenters[centerAt]! : austinCenter(order.id);
    if (centerAt < 0) data.pickupCenters.push(center);
    center.pickupAvailable = stage === 'READY_FOR_PICKUP';
    center.earliestPickupDate = stage === 'IN_TRANSIT' ? dateOnly(atMs + 3 * DAY_MS) : stage === 'READY_FOR_PICKUP' ? dateOnly(atMs) : null;
  }

  // Delivered means paid in full: the estimate becomes the final bill, as the seeded delivered order's is.
  const estimate = data.estimates.find((candidate) => candidate.orderId === order.id);
  if (estimate && seededEstimate) {
    Object.assign(estimate, structuredClone(seededEstimate));
    if (delivered) Object.assign(estimate, { paidTotal: estimate.total, amountDue: 0, isEstimate: false, calculatedAt: at });
  }
}

/**
 * Moves the moving customer's order one stage on each `advance()`. The next stage follows the
 * order's current status (a test or a person may have changed it); a status outside the
 * cycle starts it over.
 */
export function createOrderMover(data: SeedData) {
  const account = data.users.find((candidate) => candidate.username === MOVING_CUSTOMER);
  const order = account && data.orders.find((candidate) => candidate.userId === account.user.id);
  if (!order) throw new Error(`seed data: ${MOVING_CUSTOMER} has no order to move`);
  const estimate = data.estimates.find((candidate) => candidate.orderId === order.id);
  const moving: Moving = { data, order, seededEstimate: estimate && structuredClone(estimate) };
  return {
    advance(): OrderMove {
      const from = order.status;
      const to = MOVING_STAGES[(MOVING_STAGES.indexOf(from as MovingStage) + 1) % MOVING_STAGES.length]!;
      // updatedAt only goes forward, even when the clock does not.
      const atMs = Math.max(Date.now(), Date.parse(order.updatedAt ?? '') + 1 || 0);
      applyStage(moving, to, atMs);
      return { username: MOVING_CUSTOMER, orderId: order.id, reservationId: order.reservationId, from, to, at: order.updatedAt! };
    },
  };
}

export type OrderMover = ReturnType<typeof createOrderMover>;

/** The longest wait a Node timer takes (about 24.8 days); a longer one would fire at once. */
export const MAX_ADVANCE_EVERY_MS = 2_147_483_647;

/** The interval, checked: an integer from 0 (never) to MAX_ADVANCE_EVERY_MS; throws RangeError otherwise. */
export function checkAdvanceEveryMs(everyMs: number): number {
  if (!Number.isInteger(everyMs) || everyMs < 0 || everyMs > MAX_ADVANCE_EVERY_MS) {
    throw new RangeError(`advanceEveryMs must be an integer from 0 (never) to ${MAX_ADVANCE_EVERY_MS}, got ${everyMs}`);
  }
  return everyMs;
}

/**
 * The mover on a timer: a move every `everyMs`, counted from the last move, whether the timer
 * or a trigger made it (so a trigger is not followed by a second move moments later). The
 * timer does not keep the process alive.
 */
export function scheduleMoves(mover: OrderMover, everyMs: number) {
  if (checkAdvanceEveryMs(everyMs) === 0) throw new RangeError('advanceEveryMs 0 means never: nothing to schedule');
  let timer: NodeJS.Timeout | undefined;
  let nextAt = 0;
  let stopped = false;
  // Counted from the move's own time, which may be a millisecond ahead of the clock (moves
  // in one millisecond each take the next).
  const schedule = (fromMs = Date.now()) => {
    if (stopped) return;
    clearTimeout(timer);
    nextAt = fromMs + everyMs;
    timer = setTimeout(() => schedule(Date.parse(mover.advance().at)), Math.max(0, nextAt - Date.now())).unref();
  };
  schedule();
  return {
    everyMs,
    /** Moves now and restarts the count; what it did, and when the next move comes. */
    advance() {
      const move = mover.advance();
      schedule(Date.parse(move.at));
      return { ...move, everyMs, nextAt: new Date(nextAt).toISOString() };
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
