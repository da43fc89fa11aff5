/**
 * What one customer's order history takes with 100 events (HISTORY_EVENTS_PER_ORDER's
 * default): the history's JSON bytes (what a Redis key holds, and what HISTORY_CUSTOMER_BYTES
 * bounds), the in-memory store's own estimate of it (what HISTORY_BYTES bounds), and the heap
 * it really takes in this process, measured over many customers after a GC.
 * Run: node --expose-gc --import tsx bench/history-memory.ts [customers] [orders]
 */
import { createHistory } from '../src/graph/history.js';
import { memoryHistoryStore } from '../src/graph/history-memory.js';
import type { Order } from '../src/upstream/models.js';

const CUSTOMERS = Number(process.argv[2] ?? 2000);
const ORDERS = Number(process.argv[3] ?? 1);
const EVENTS = 100;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const STATUSES = ['ORDER_CONFIRMED', 'BUILD_LOCKED', 'IN_PRODUCTION', 'IN_TRANSIT', 'READY_FOR_PICKUP'];

/** An order record as the simulator's, with what a move changes (status, updatedAt) at step `i`. */
function orderAt(customer: number, index: number, step: number): Order {
  return {
    id: `9f3c2a1e-5b7d-4c1f-8e2a-${String(customer).padStart(8, '0')}${String(index).padStart(4, '0')}`,
    reservationId: `OC-${String(customer).padStart(5, '0')}`,
    userId: `c0ffee00-1234-4abc-9def-${String(customer).padStart(12, '0')}`,
    status: STATUSES[step % STATUSES.length]!,
    createdAt: '2026-01-05T10:00:00.000Z',
    updatedAt: new Date(Date.parse('2026-01-05T10:00:00.000Z') + step * 3_600_000).toISOString(),
    editBuildExpirationDate: '2026-02-01T00:00:00.000Z',
    vehicleDelivered: false,
    product: { model: 'OC', trim: 'O1', country: 'US', msrp: 68999, preorderFee: 300, deliveryFees: 1500, currencyCode: 'USD' },
    configuration: { exterior: 'EXT-GREEN', interior: 'INT-BLACK', wheel: 'F3B', trim: 'O1' },
  };
}

const store = memoryHistoryStore(Number.MAX_SAFE_INTEGER);
const history = createHistory({ store, bounds: { eventsPerOrder: EVENTS, maxAgeMs: 400 * 86_400_000, customerBytes: 64 * 1024 * 1024 } });

gc();
const before = process.memoryUsage().heapUsed;
let jsonBytes = 0;
for (let customer = 0; customer < CUSTOMERS; customer += 1) {
  // The first observation, then 99 changes: 100 events per order.
  for (let step = 0; step < EVENTS; step += 1) {
    const orders = Array.from({ length: ORDERS }, (_, index) => orderAt(customer, index, step));
    await history.observe(orders, new Date(Date.parse('2026-01-05T10:00:00.000Z') + step * 3_600_000).toISOString());
  }
  jsonBytes += Buffer.byteLength((await store.read(orderAt(customer, 0, 0).userId!))!);
}
gc();
const heap = process.memoryUsage().heapUsed - before;
const events = (await history.events(orderAt(0, 0, 0), 100, null)).length;

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
console.log(`${CUSTOMERS} customers × ${ORDERS} order(s) × ${events} events`);
console.log(`history JSON (a Redis value):       ${kib(jsonBytes / CUSTOMERS)} per customer`);
console.log(`in-memory estimate (HISTORY_BYTES): ${kib(store.stats().bytes / CUSTOMERS)} per customer`);
console.log(`measured heap in this process:      ${kib(heap / CUSTOMERS)} per customer`);
