// The hostile upstreams of issue 39, on a real socket, and what a client of a production gateway
// in front of one sees: for memory-bounds.test.ts (the bounds asserted) and bench/abuse.ts (the
// peak memory reported). And the Deployment's memory limit both measure against.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { print } from 'graphql';
import { parseAllDocuments } from 'yaml';
import { WholeOrderDocument } from '../../src/client/__generated__/graphql.js';
import { json, startStubUpstream } from './stub-upstream.js';

/** The Deployment's memory limit, in bytes (deploy/kubernetes/deployment.yaml). */
export function deploymentMemoryLimit(): number {
  const text = readFileSync(new URL('../../deploy/kubernetes/deployment.yaml', import.meta.url), 'utf8');
  const deployment = parseAllDocuments(text)[0]!.toJS() as {
    spec: { template: { spec: { containers: { resources: { limits: { memory: string } } }[] } } };
  };
  return Number(/^(\d+)Mi$/.exec(deployment.spec.template.spec.containers[0]!.resources.limits.memory)![1]) * 2 ** 20;
}

/** A field the whole order shows, 1.9 MB long: each upstream answer stays under its 2 MB cap. */
const BIG = 'x'.repeat(1_900_000);
/** An estimate of about 1 MB: a 10,000-character currency, 30,000 fee lines each of which would carry it into an amount. */
const AMPLIFIED = JSON.stringify({
  orderId: 'o',
  currencyCode: 'Q'.repeat(10_000),
  total: 1,
  amountDue: 1,
  fees: Array.from({ length: 30_000 }, (_, i) => ({ code: `F${i}`, amount: 1 })),
});

/**
 * The upstream: every bearer is a customer of its own with one delivered order. A bearer
 * starting `amplified` gets the estimate above; one starting `fields`, a 1.9 MB value in a field
 * the whole order shows, in every answer; any other, a plain order.
 */
export async function hostileUpstream() {
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
      if (!bearer.startsWith('amplified'))
        return json(res, 200, {
          orderId: 'o',
          currencyCode: 'USD',
          total: 1,
          amountDue: 1,
          fees: [{ code: 'F', description: big ?? 'Fee', amount: 1 }],
        });
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(AMPLIFIED);
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

const WHOLE_ORDER = JSON.stringify({ query: print(WholeOrderDocument) });

/** What one whole order got: its status and the codes answered (or how its connection failed), and whether it came whole. */
export interface WholeOrderAnswer {
  status: number;
  codes: string[];
  whole: boolean;
}

/** A whole order over a connection of its own from `localAddress` (any of 127/8 on Linux). */
export function wholeOrder(endpoint: string, bearer: string, localAddress = '127.0.0.1') {
  return new Promise<WholeOrderAnswer>((resolve) => {
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

/** How many answers of each kind: `<status> <codes>` (`whole` for none). */
export function tally(answers: readonly WholeOrderAnswer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status, codes } of answers) {
    const key = `${status} ${codes.join(',') || 'whole'}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** The amplified estimate asked for by two customers at once, another customer's whole order meanwhile. */
export async function amplifiedEstimate(endpoint: string) {
  const hostile = Promise.all([wholeOrder(endpoint, 'amplified-1'), wholeOrder(endpoint, 'amplified-2')]);
  const other = await wholeOrder(endpoint, 'other');
  return { answers: await hostile, other };
}

/** Twenty addresses at once (127.0.0.2–21), three rounds, every upstream answer with a 1.9 MB field; another customer's whole order in the second. */
export async function crowdOfLargeFields(endpoint: string) {
  const answers: WholeOrderAnswer[] = [];
  let other: WholeOrderAnswer | undefined;
  for (let round = 0; round < 3; round++) {
    const crowd = Promise.all(Array.from({ length: 20 }, (_, i) => wholeOrder(endpoint, `fields-${i}`, `127.0.0.${i + 2}`)));
    if (round === 1) other = await wholeOrder(endpoint, 'other');
    answers.push(...(await crowd));
  }
  return { answers, other: other! };
}
