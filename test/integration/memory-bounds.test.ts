// The gateway bounded as a whole, as shipped: the production launcher with the heap flags it
// computes for the Deployment's memory limit (640 Mi), the image's way of running it
// (NODE_ENV=production), in front of a hostile upstream on a real socket, its peak RSS sampled.
// An estimate whose currency would be copied into every amount, asked for by two customers at
// once; a crowd of twenty addresses whose every upstream answer carries a 1.9 MB field. Neither
// takes the process past 60 % of the pod's limit, every client gets an answer, and another
// customer's whole order meanwhile is whole (issue 39, items 1 and 3).
import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HOSTS } from '../../src/upstream/contract.js';
import { heapFlags } from '../../src/tools/heap-flags.mjs';
import { amplifiedEstimate, crowdOfLargeFields, deploymentMemoryLimit, hostileUpstream, tally } from '../helpers/hostile-upstream.js';
import { buildDist, killStarted, LISTENING, startProcess } from '../helpers/process.js';

/** The Deployment's memory limit, and the share of it the peak must stay under. */
const LIMIT_BYTES = deploymentMemoryLimit();
const PEAK_SHARE = 0.6;

let upstream: Awaited<ReturnType<typeof hostileUpstream>>;
beforeAll(async () => {
  buildDist();
  upstream = await hostileUpstream();
});
afterAll(() => upstream.close());
afterEach(killStarted);

/** The production gateway, as the image starts it under the Deployment's limit; its URL and its peak RSS so far (VmHWM). */
async function productionGateway() {
  const started = startProcess(process.execPath, ['dist/src/tools/start.mjs'], {
    ...Object.fromEntries(HOSTS.map((name) => [name, upstream.urls[name]])),
    NODE_ENV: 'production',
    ALLOWED_HOSTS: 'localhost',
    HOST: '0.0.0.0',
    LOG_LEVEL: 'warn',
    NODE_HEAP_FLAGS: heapFlags({}, LIMIT_BYTES, totalmem()).join(' '),
  });
  const [, url] = await started.output(LISTENING);
  const status = `/proc/${started.child.pid!}/status`;
  const peak = () => Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(status, 'utf8'))![1]) * 1024;
  return { endpoint: url!.replace('localhost', '127.0.0.1'), peak, started };
}

describe(`the production gateway under the Deployment's memory limit stays under ${PEAK_SHARE * 100} % of it`, () => {
  it('an estimate whose currency every amount would copy, two customers at once: the estimate is UPSTREAM_ERROR, another whole order is whole', async () => {
    const gateway = await productionGateway();
    const { answers, other } = await amplifiedEstimate(gateway.endpoint);
    console.info(`amplified estimate ×2: ${JSON.stringify(tally(answers))}; peak RSS ${(gateway.peak() / 1e6).toFixed(0)} MB`);
    expect(answers).toEqual([0, 1].map(() => ({ status: 200, codes: ['UPSTREAM_ERROR'], whole: false })));
    expect(other).toEqual({ status: 200, codes: [], whole: true });
    expect(gateway.peak()).toBeLessThan(LIMIT_BYTES * PEAK_SHARE);
    expect(gateway.started.child.exitCode).toBeNull();
  });

  it('twenty addresses at once, three rounds, every upstream answer carrying a 1.9 MB field: each answered, none cut, another whole order is whole', async () => {
    const gateway = await productionGateway();
    const { answers, other } = await crowdOfLargeFields(gateway.endpoint);
    const counts = tally(answers);
    console.info(`20 addresses × 3 rounds, 1.9 MB fields: ${JSON.stringify(counts)}; peak RSS ${(gateway.peak() / 1e6).toFixed(0)} MB`);
    // Each request ends past its own budget, or gives way for want of room: never a cut connection, never a 500.
    expect(Object.keys(counts).filter((key) => !/^(200 ANSWER_TOO_LARGE|503 OVERLOADED)$/.test(key))).toEqual([]);
    expect(other).toEqual({ status: 200, codes: [], whole: true });
    expect(gateway.peak()).toBeLessThan(LIMIT_BYTES * PEAK_SHARE);
    expect(gateway.started.child.exitCode).toBeNull();
  });
});
