// The document cache (src/server/document-cache.ts) under a flood of distinct documents, each
// inside every query limit, sent without a token: what the gateway keeps of them (parsed,
// validated, compiled) stays within DOCUMENT_CACHE_BYTES, and a normal client is answered
// throughout.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { execute, startHarness, type Harness } from '../helpers/harness.js';
import { demoCustomer } from '../helpers/demo.js';
import { captureLogger } from '../helpers/log-capture.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const MB = 1024 * 1024;
const BUDGET = 4 * MB;
// 1,500 distinct documents (the first 1,000 sent once, the next 500 twice, so compiled): kept
// without the budget, they grow the heap by about 55 MB after GC; with it, by 6-8 MB.
const DOCUMENTS = 2_000;
const ONCE = 1_000;

let harness: Harness;
beforeAll(async () => {
  // Its request lines at info would be 10,000 kept strings: this test measures the heap.
  harness = await startHarness({ gateway: { documentCacheBytes: BUDGET, logger: captureLogger('warn') } });
});
afterAll(() => harness?.close());

/** A distinct document of the kind a frontend sends: fragments, nesting, no upstream call without a token. */
const documentNumber = (i: number) => `query Flood${i} {
  me { ...Who orders(first: 2) { id status createdAt vehicle { vin model modelYear } pickup { name phone address { city } }
    estimate { total { amount currencyCode } amountDue { amount currencyCode } } payments { id status amount { amount } } } }
}
fragment Who on Customer { id email firstName lastName country locale createdAt address { id line1 city postalCode } }`;

async function post(query: string, token?: string) {
  const response = await harness.fetch(harness.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: { extensions?: { code?: string } }[] } };
}

/** Sends `count` requests made by `make`, `concurrency` at a time; resolves to the statuses seen. */
async function flood(count: number, concurrency: number, make: (i: number) => Promise<{ status: number }>) {
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const { status } = await make(next++);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

describe('distinct documents, no token', () => {
  it(`${DOCUMENTS.toLocaleString('en')} requests of distinct documents (the second half each sent twice, so compiled): the heap after GC grows by the budget at most, and a normal client is answered throughout`, async () => {
    const ready = demoCustomer(harness.simulator, 'ready@demo.test');
    const token = await harness.login(ready.username);
    // Warm: the first whole order, and what loading the modules costs, before the baseline.
    await execute(harness.client(token), WholeOrderDocument);
    await flood(50, 4, (i) => post(documentNumber(-i - 1)));
    harness.simulator.clearLog();
    const before = heapAfterGc();

    let normalAnswers = 0;
    let normalFailures = 0;
    let flooding = true;
    const normal = (async () => {
      while (flooding) {
        const { data, errors } = await execute(harness.client(token), WholeOrderDocument);
        if (errors.length === 0 && data?.me?.orders?.[0]?.vehicle?.vin) normalAnswers += 1;
        else normalFailures += 1;
        // A client, not a second flood: its whole orders would take the CPU the flood needs.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const statuses = await flood(DOCUMENTS, 8, (i) =>
      i < ONCE ? post(documentNumber(i)) : post(documentNumber(ONCE + Math.floor((i - ONCE) / 2))),
    );
    flooding = false;
    await normal;
    // The in-process simulator logs every call the normal client made: not the gateway's heap.
    harness.simulator.clearLog();
    const grownMb = (heapAfterGc() - before) / MB;

    // Every flood document was valid and answered (200, UNAUTHENTICATED on `me`: no token, no upstream call).
    expect(statuses).toEqual(new Map([[200, DOCUMENTS]]));
    expect(normalFailures).toBe(0);
    expect(normalAnswers).toBeGreaterThan(0);
    // The budget, plus what V8 keeps besides (its code caches for compiled documents age out
    // over several collections: about 4 MB, measured; docs/limits.md) and what a collection
    // leaves behind. Without the budget this flood grew the heap by 55 MB.
    expect(grownMb).toBeLessThan(BUDGET / MB + 10);
    console.info(
      `${DOCUMENTS} requests of distinct documents: heap +${grownMb.toFixed(1)} MB after GC (budget ${BUDGET / MB} MB); ${normalAnswers} whole orders answered meanwhile`,
    );
  });
});
