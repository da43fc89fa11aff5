// `PartAvailability.available` against what a client can see, for every status the API names
// and one it does not: false only where the part cannot have a value; and a part whose call
// failed is null with its error, whatever `available` says. The gateway in process in front
// of the simulator, through a proxy that can show the gateway an order status it does not
// know while the simulator answers the per-order calls at a stage of its own.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { AVAILABLE_FROM, ORDER_FIELD_OPERATIONS } from '../../src/graph/order-fields.js';
import { createSimulator } from '../../src/simulator/server.js';
import { hasReached, ORDER_STAGES, ORDER_STATUSES, type OrderStage } from '../../src/upstream/contract.js';
import { demoOrders, demoToken } from '../helpers/demo.js';
import { CODE_OF_FAULT } from '../helpers/faults.js';
import { execute, inProcessGateway } from '../helpers/harness.js';
import { createUpstreamProxy } from '../helpers/upstream-proxy.js';

/** A status no version of the contract names: the service's own, newer than this gateway. */
const NEWER_STATUS = 'QUALITY_HOLD';
/** The customer whose order has a record for every stage-bound part. */
const READY = 'ready@demo.test';

const simulator = createSimulator({ latencyMs: 0 });
const [order] = demoOrders(simulator, READY);
const seededStatus = order!.status;
/** The status the gateway is shown in place of the one the simulator holds (null: the simulator's own). */
let shownAs: string | null = null;
const upstream = createUpstreamProxy(simulator, {
  rewrite: (operation, _request, text) =>
    operation === 'orderDetails' && shownAs
      ? JSON.stringify((JSON.parse(text) as { status: string }[]).map((record) => ({ ...record, status: shownAs })))
      : text,
});
const gateway = inProcessGateway({ upstream });
const token = await demoToken(simulator, READY);

afterEach(() => {
  order!.status = seededStatus;
  shownAs = null;
  simulator.clearFaults();
});
afterAll(async () => {
  await gateway.close();
  await simulator.close();
});

const STAGE_BOUND = Object.keys(AVAILABLE_FROM) as (keyof typeof AVAILABLE_FROM)[];

/** The order as the gateway answers it: its status, each stage-bound part's availability, whether it has a value, and its errors. */
async function read() {
  const { data, errors } = await execute(gateway.client(token), WholeOrderDocument);
  const answered = data!.me!.orders![0]!;
  return {
    status: answered.status,
    parts: STAGE_BOUND.map((field) => {
      const entry = answered.availability.find(({ part }) => part === field.toUpperCase())!;
      return { field, available: entry.available, present: answered[field] !== null };
    }),
    errors: errors.map(({ path, extensions }) => ({ path, code: extensions?.code })),
  };
}

/** Every part failing: a fault (a 500) on each stage-bound call. */
function failEveryPart() {
  for (const field of STAGE_BOUND) simulator.setFault(ORDER_FIELD_OPERATIONS[field], '500');
}
const failures = STAGE_BOUND.map((field) => ({ path: ['me', 'orders', 0, field], code: CODE_OF_FAULT['500'] }));

describe('PartAvailability.available, for every status', () => {
  it.each(ORDER_STATUSES)(
    '%s: available exactly where the part has a value; a failed part is its error, available or not',
    async (status) => {
      order!.status = status;
      const answer = await read();
      expect(answer.status).toBe(status);
      expect(answer.errors).toEqual([]);
      // The ready customer's order has a record for every part: each comes exactly from its stage.
      for (const part of answer.parts) expect(part, status).toEqual({ ...part, available: part.present });
      expect(answer.parts.map(({ available }) => available)).toEqual(STAGE_BOUND.map((field) => hasReached(status, AVAILABLE_FROM[field])));

      failEveryPart();
      const failed = await read();
      // Before its stage too: a 500 is a failure, not "not yet" (the gateway does not guess the service's stage rules).
      expect(failed.parts).toEqual(answer.parts.map((part) => ({ ...part, present: false })));
      expect(failed.errors).toEqual(failures);
    },
  );

  it(`a status the API does not know (${NEWER_STATUS}, UNKNOWN): every part can have a value, so every part is available; a failed part is its error`, async () => {
    shownAs = NEWER_STATUS;
    // Where the service places its own status: at each stage in turn, seen by the gateway as one it does not know.
    const seen: { stage: OrderStage; parts: { field: string; available: boolean; present: boolean }[] }[] = [];
    for (const stage of ORDER_STAGES) {
      order!.status = stage;
      const answer = await read();
      expect(answer.status).toBe('UNKNOWN');
      expect(answer.errors).toEqual([]);
      seen.push({ stage, parts: answer.parts });
    }
    expect(seen).toEqual(
      ORDER_STAGES.map((stage) => ({
        stage,
        parts: STAGE_BOUND.map((field) => ({ field, available: true, present: hasReached(stage, AVAILABLE_FROM[field]) })),
      })),
    );

    failEveryPart();
    const failed = await read();
    expect(failed.parts).toEqual(STAGE_BOUND.map((field) => ({ field, available: true, present: false })));
    expect(failed.errors).toEqual(failures);
  });
});
