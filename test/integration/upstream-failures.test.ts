// What each upstream failure becomes at the gateway, for every operation: each of the
// simulator's faults (src/simulator/faults.ts) on each operation, and a refused
// connection on each host. The affected fields are null with their code
// (test/helpers/faults.ts), their siblings intact, and no error holds an upstream address,
// body, stack or token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULT_MODES, startSimulator, type FaultMode, type InProcessSimulator } from '../../src/simulator/server.js';
import { CONTRACT, HOSTS, OPERATION_NAMES, type OperationName } from '../../src/upstream/contract.js';
import { demoCustomer } from '../helpers/demo.js';
import { CODE_OF_FAULT, CUSTOMER_FIELDS_OF, ORDER_FIELDS_OF } from '../helpers/faults.js';
import { inProcessGateway, startGateway, type ResponseError, type TestGateway } from '../helpers/harness.js';
import { CUSTOMER_CALL_FIELDS, PER_ORDER_FIELDS } from '../helpers/whole-order.js';

// The per-call timeout ends a hang or a drip; every other call of the probe must come back
// within it, which on a loaded machine (load 8 on two cores) 300 ms was not always enough for.
const TIMEOUT_MS = 1_000;
const DEADLINE_MS = 3_000;
const SETTINGS = { upstreamTimeoutMs: TIMEOUT_MS, upstreamRetries: 1, requestDeadlineMs: DEADLINE_MS };

/**
 * The faults met on a real socket, through undici (a connection held, reset, a body too large
 * or too slow as it arrives); the others are a body's content, the same in process.
 */
const SOCKET_FAULTS: ReadonlySet<FaultMode> = new Set(['hang', 'reset', 'oversized', 'slowdrip']);

const WHOLE = `{
  me { id firstName ${CUSTOMER_CALL_FIELDS} orders { id status ${PER_ORDER_FIELDS} } }
  orders { id reservationId }
}`;

interface Probe {
  query: string;
  variables?: () => Promise<Record<string, unknown>>;
  authenticated: boolean;
  /** The paths that must be null, each with one error. */
  nulled: string[][];
}

let simulator: InProcessSimulator;
let gateway: TestGateway;
let inProcess: TestGateway;
let token: string;
const ready = () => demoCustomer(simulator, 'ready@demo.test');

/** A fresh refresh token straight from the simulator (refresh tokens rotate on use). */
async function freshRefreshToken(): Promise<string> {
  const response = await fetch(`${simulator.urls.AUTH_URL}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: ready().username, password: ready().password }),
  });
  return ((await response.json()) as { refreshToken: string }).refreshToken;
}

function probeFor(operation: OperationName): Probe {
  switch (operation) {
    case 'login':
      return {
        query: 'mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken } }',
        variables: async () => ({ u: ready().username, p: ready().password }),
        authenticated: false,
        nulled: [['login']],
      };
    case 'refreshTokens':
      return {
        query: 'mutation ($r: String!) { refreshTokens(refreshToken: $r) { accessToken } }',
        variables: async () => ({ r: await freshRefreshToken() }),
        authenticated: false,
        nulled: [['refreshTokens']],
      };
    case 'customerDetails':
      return { query: WHOLE, authenticated: true, nulled: [['me']] };
    case 'orderDetails':
      // Both lists fail: the same call serves me.orders and orders.
      return { query: WHOLE, authenticated: true, nulled: [['me', 'orders'], ['orders']] };
    default: {
      // A per-order call's fields in the first order, a customer-level call's in the customer.
      const nulled =
        ORDER_FIELDS_OF[operation]?.map((f) => ['me', 'orders', '0', f]) ?? CUSTOMER_FIELDS_OF[operation]!.map((f) => ['me', f]);
      return { query: WHOLE, authenticated: true, nulled };
    }
  }
}

/** The paths none of which is under another: a field under a null one is not there to be null. */
const outermost = (paths: string[][]) =>
  paths.filter((path) => !paths.some((other) => other.length < path.length && other.every((key, i) => key === path[i])));

async function run(gateway: TestGateway, probe: Probe) {
  const variables = probe.variables ? await probe.variables() : undefined;
  const started = Date.now();
  const response = await gateway.client(probe.authenticated ? token : null).rawRequest<Record<string, unknown>>(probe.query, variables);
  return { data: response.data ?? null, errors: (response.errors ?? []) as unknown as ResponseError[], ms: Date.now() - started };
}

/** The value with each given path set to null (the mutation's whole data when the path is its root field). */
function withNulls(value: unknown, paths: string[][]): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  for (const path of paths) {
    let at: Record<string, unknown> = copy;
    for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
    at[path.at(-1)!] = null;
  }
  return copy;
}

const baselines = new Map<OperationName, unknown>();

beforeAll(async () => {
  simulator = await startSimulator();
  gateway = await startGateway({ upstreamUrls: simulator.urls, ...SETTINGS });
  inProcess = inProcessGateway({ upstream: simulator, ...SETTINGS });
  token = await simulator.issueAccessToken(ready().userId);
  for (const operation of OPERATION_NAMES) {
    const { data, errors } = await run(inProcess, probeFor(operation));
    expect(errors).toEqual([]);
    baselines.set(operation, data);
  }
}, 60_000);
afterAll(async () => {
  await inProcess.close();
  await gateway.close();
  await simulator.close();
});

function expectFault(
  operation: OperationName,
  mode: FaultMode | 'refused',
  result: Awaited<ReturnType<typeof run>>,
  nulled = probeFor(operation).nulled,
) {
  const { data, errors, ms } = result;
  // A hang or a drip never ends by itself: an answer at all is the timeout's and the
  // deadline's doing. Bounded structurally (ten deadlines), not as a speed claim that load could break.
  expect(ms).toBeLessThan(10 * DEADLINE_MS);
  const mutation = operation === 'login' || operation === 'refreshTokens';
  // A failed mutation's data is null as a whole (its TokenSet is non-null); elsewhere only the affected fields are.
  expect(data).toEqual(mutation ? null : withNulls(baselines.get(operation), nulled));
  expect(errors.map((e) => e.path?.map(String))).toEqual(expect.arrayContaining(nulled));
  expect(errors).toHaveLength(nulled.length);
  for (const error of errors) {
    expect(error.extensions).toMatchObject({ code: CODE_OF_FAULT[mode] });
    if (mode === '429') expect(error.extensions).toMatchObject({ upstreamStatus: 429, retryAfterSeconds: 7 });
    if (mode === '500') expect(error.extensions?.upstreamStatus).toBe(500);
    const text = JSON.stringify(error);
    expect(text).not.toMatch(/127\.0\.0\.1|https?:|<html|stack|\bat \/|Bearer|padding/i);
    expect(text).not.toContain(token);
  }
}

describe(`fault matrix: ${FAULT_MODES.length} simulator faults × ${OPERATION_NAMES.length} operations`, () => {
  it.each(OPERATION_NAMES.flatMap((operation) => FAULT_MODES.map((mode) => [operation, mode] as const)))(
    '%s: %s',
    async (operation, mode) => {
      simulator.clearFaults();
      simulator.setFault(operation, mode);
      try {
        const result = await run(SOCKET_FAULTS.has(mode) ? gateway : inProcess, probeFor(operation));
        expectFault(operation, mode, result);
        for (const error of result.errors) expect(error.extensions?.operation).toBe(operation);
      } finally {
        simulator.clearFaults();
      }
    },
  );
});

describe("the socket's faults in process too: the tests' in-process transport meets each as undici does (one operation)", () => {
  it.each([...SOCKET_FAULTS])('customerDetails: %s', async (mode) => {
    simulator.clearFaults();
    simulator.setFault('customerDetails', mode);
    try {
      const result = await run(inProcess, probeFor('customerDetails'));
      expectFault('customerDetails', mode, result);
      for (const error of result.errors) expect(error.extensions?.operation).toBe('customerDetails');
    } finally {
      simulator.clearFaults();
    }
  });
});

describe('connection refused, per host (every operation of that host fails, the others stay)', () => {
  it.each(HOSTS)('%s refused', async (host) => {
    // Port 1 on loopback: nothing listens, every connection is refused.
    const refused = await startGateway({ upstreamUrls: { ...simulator.urls, [host]: 'http://127.0.0.1:1/refused' }, ...SETTINGS });
    try {
      const operations = OPERATION_NAMES.filter((op) => CONTRACT[op].host === host);
      // The whole order, asked once, loses the fields of all the host's calls at once, and those
      // under one of them with it: the order list's host takes every per-order field, the
      // customer's every customer-level one.
      const wholeOrder = operations.filter((op) => probeFor(op).query === WHOLE);
      for (const operation of operations.filter((op) => !wholeOrder.includes(op)))
        expectFault(operation, 'refused', await run(refused, probeFor(operation)));
      if (wholeOrder.length > 0)
        expectFault(
          wholeOrder[0]!,
          'refused',
          await run(refused, probeFor(wholeOrder[0]!)),
          outermost(wholeOrder.flatMap((op) => probeFor(op).nulled)),
        );
    } finally {
      await refused.close();
    }
  });
});
