// The gateway bounded as a whole, as shipped: the production launcher with the heap flags it
// computes for the Deployment's memory limit (640 Mi), the ConfigMap's way of running it
// (NODE_ENV=production), in front of a hostile upstream on a real socket, its peak RSS sampled.
// An estimate whose currency would be copied into every amount, asked for by two customers at
// once; a crowd of twenty addresses whose every upstream answer carries a 1.9 MB field. Neither
// takes the process past 60 % of the pod's limit, every client gets an answer, and another
// customer's whole order meanwhile is whole (issue 39, items 1 and 3).
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { totalmem } from 'node:os';
import { print } from 'graphql';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { HOSTS } from '../../src/upstream/contract.js';
import { heapFlags } from '../../src/tools/heap-flags.mjs';
import { buildDist, killStarted, LISTENING, startProcess } from '../helpers/process.js';
import { json, startStubUpstream } from '../helpers/stub-upstream.js';

/** The Deployment's memory limit (deploy/kubernetes/deployment.yaml), and the share of it the peak must stay under. */
const LIMIT_BYTES = 640 * 2 ** 20;
const PEAK_SHARE = 0.6;

const BIG = 'x'.repeat(1_900_000);
/** An estimate of about 1 MB: a 10,000-character currency, 30,000 fee lines each of which would carry it. */
const AMPLIFIED = JSON.stringify({
  orderId: 'o',
  currencyCode: 'Q'.repeat(10_000),
  total: 1,
  amountDue: 1,
  fees: Array.from({ length: 30_000 }, (_, i) => ({ code: `F${i}`, amount: 1 })),
});

/**
 * The upstream: every bearer is a customer of its own with one order at its last stage. A bearer
 * starting `amplified` gets the estimate above; one starting `fields`, a 1.9 MB value in a field
 * the whole order shows in every answer (each under the 2 MB cap on one answer).
 */
async function hostileUpstream() {
  return startStubUpstream((req, res) => {
    const bearer = /^Bearer (\S+)/.exec(req.authorization ?? '')?.[1];
    if (!bearer) return json(res, 401, { code: 'UNAUTHORIZED' });
    const big = bearer.startsWith('fields') ? BIG : undefined;
    const p = req.path;
    if (p.endsWith('/auth/me')) return json(res, 200, { id: bearer, firstName: big ?? 'Ann' });
    if (p.endsWith('/v2/order/user'))
      return json(res, 200, [
        {
          id: `${bearer}-o`,
          reservationId: 'OC-AAAAA',
          userId: bearer,
          status: 'DELIVERED',
          product: { currencyCode: 'USD', model: big ?? 'OC' },
        },
      ]);
    if (p.endsWith('/order/estimate')) {
      if (bearer.startsWith('amplified')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(AMPLIFIED);
      }
      return json(res, 200, {
        orderId: 'o',
        currencyCode: 'USD',
        total: 1,
        amountDue: 1,
        fees: [{ code: 'F', description: big ?? 'Fee', amount: 1 }],
      });
    }
    if (p.includes('/order-address/findAll/')) return json(res, 200, [{ id: 'a', addressType: 'DELIVERY', address1: big ?? 'Main St' }]);
    if (p.endsWith('/order-payments'))
      return json(res, 200, [{ id: 'p', feeType: 'ORDER_FEE', amount: 1, currencyCode: 'USD', status: big ?? 'SUCCEEDED' }]);
    if (p.endsWith('/vehicle/getDetails')) return json(res, 200, { vin: 'VCF1ZBU28PG123456', model: 'OC', exterior: big ?? 'MWH' });
    if (p.endsWith('/pickup-scheduler/get-pickup-nearest-center-plus'))
      return json(res, 200, { centerPlusLocationId: 'c', name: big ?? 'Centre' });
    if (p.endsWith('/partner-trade-in/trade-in-details'))
      return json(res, 200, { id: 't', status: 'OFFER_RECEIVED', partner: big ?? 'Dealer' });
    json(res, 404, { code: 'NOT_FOUND' });
  });
}

let upstream: Awaited<ReturnType<typeof hostileUpstream>>;
beforeAll(async () => {
  buildDist();
  upstream = await hostileUpstream();
});
afterAll(() => upstream.close());
afterEach(killStarted);

/** The production gateway, as the image starts it under a 640 Mi limit; its URL and its peak RSS so far (VmHWM). */
async function productionGateway() {
  const flags = heapFlags({}, LIMIT_BYTES, totalmem());
  const started = startProcess(process.execPath, ['dist/src/tools/start.mjs'], {
    ...Object.fromEntries(HOSTS.map((name) => [name, upstream.urls[name]])),
    NODE_ENV: 'production',
    ALLOWED_HOSTS: 'localhost',
    HOST: '0.0.0.0',
    LOG_LEVEL: 'warn',
    NODE_HEAP_FLAGS: flags.join(' '),
  });
  const [, url] = await started.output(LISTENING);
  const pid = started.child.pid!;
  const peak = () => Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
  return { endpoint: url!.replace('localhost', '127.0.0.1'), peak, started };
}

const WHOLE_ORDER = JSON.stringify({ query: print(WholeOrderDocument) });

/** A whole order over its own connection from `localAddress`: the status and the codes answered, or how the connection failed. */
function wholeOrder(endpoint: string, bearer: string, localAddress = '127.0.0.1') {
  return new Promise<{ status: number; codes: string[]; whole: boolean }>((resolve) => {
    const req = request(
      endpoint,
      {
        method: 'POST',
        agent: new Agent({ keepAlive: false }),
        localAddress,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            data?: { me?: { orders?: { estimate: unknown }[] } };
            errors?: { extensions?: { code?: string } }[];
          };
          const codes = (body.errors ?? []).map((error) => String(error.extensions?.code));
          resolve({ status: res.statusCode!, codes, whole: codes.length === 0 && body.data?.me?.orders?.[0]?.estimate != null });
        });
        res.on('error', () => resolve({ status: -1, codes: ['response cut'], whole: false }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ status: -1, codes: [String(error.code)], whole: false }));
    req.end(WHOLE_ORDER);
  });
}

const tally = (answers: { status: number; codes: string[] }[]) => {
  const counts: Record<string, number> = {};
  for (const { status, codes } of answers)
    counts[`${status} ${codes.join(',') || 'whole'}`] = (counts[`${status} ${codes.join(',') || 'whole'}`] ?? 0) + 1;
  return counts;
};

describe(`the production gateway under a 640 Mi limit stays under ${PEAK_SHARE * 100} % of it`, () => {
  it('an estimate whose currency every amount would copy, two customers at once: the estimate is UPSTREAM_ERROR, another whole order is whole', async () => {
    const gateway = await productionGateway();
    const hostile = Promise.all([wholeOrder(gateway.endpoint, 'amplified-1'), wholeOrder(gateway.endpoint, 'amplified-2')]);
    const other = await wholeOrder(gateway.endpoint, 'other');
    const answers = await hostile;
    console.info(`amplified estimate ×2: ${JSON.stringify(tally(answers))}; peak RSS ${(gateway.peak() / 1e6).toFixed(0)} MB`);
    expect(answers).toEqual([0, 1].map(() => ({ status: 200, codes: ['UPSTREAM_ERROR'], whole: false })));
    expect(other).toEqual({ status: 200, codes: [], whole: true });
    expect(gateway.peak()).toBeLessThan(LIMIT_BYTES * PEAK_SHARE);
    expect(gateway.started.child.exitCode).toBeNull();
  });

  it('twenty addresses at once, three rounds, every upstream answer carrying a 1.9 MB field: each answered, none cut, another whole order is whole', async () => {
    const gateway = await productionGateway();
    const answers: Awaited<ReturnType<typeof wholeOrder>>[] = [];
    let other: Awaited<ReturnType<typeof wholeOrder>> | undefined;
    for (let round = 0; round < 3; round++) {
      const crowd = Promise.all(Array.from({ length: 20 }, (_, i) => wholeOrder(gateway.endpoint, `fields-${i}`, `127.0.0.${i + 2}`)));
      if (round === 1) other = await wholeOrder(gateway.endpoint, 'other');
      answers.push(...(await crowd));
    }
    const counts = tally(answers);
    console.info(`20 addresses × 3 rounds, 1.9 MB fields: ${JSON.stringify(counts)}; peak RSS ${(gateway.peak() / 1e6).toFixed(0)} MB`);
    // Each request ends past its own budget, or gives way for want of room: never a cut connection, never a 500.
    expect(Object.keys(counts).filter((key) => !/^(200 ANSWER_TOO_LARGE|503 OVERLOADED)$/.test(key))).toEqual([]);
    expect(other).toEqual({ status: 200, codes: [], whole: true });
    expect(gateway.peak()).toBeLessThan(LIMIT_BYTES * PEAK_SHARE);
    expect(gateway.started.child.exitCode).toBeNull();
  });
});
