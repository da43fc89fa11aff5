/**
 * The hand-written optimum, as a server so that autocannon drives it exactly like the
 * gateway: `GET /` with `Authorization: Bearer <token>` answers the caller's whole order as
 * JSON, calling the REST service in the best possible order over keep-alive connections
 * (customer + order list together, then every per-order call together). Plain node:http
 * and JSON.parse: no got, no GraphQL. Environment: the five upstream URLs (AUTH_URL, ...),
 * OPTIMUM_PORT (default 0). Prints one JSON line `{"url": ...}` once listening.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CONTRACT,
  CUSTOMER_LEVEL_OPERATIONS,
  HOSTS,
  isPerOrder,
  OPERATION_NAMES,
  operationUrl,
  paramValues,
  type HostName,
  type OperationName,
  type UpstreamUrls,
} from '../src/upstream/contract.js';

const TIMEOUT_MS = 5000;

// One keep-alive agent per upstream host, like the gateway.
const urls = {} as UpstreamUrls;
const agents = {} as Record<HostName, http.Agent>;
for (const name of HOSTS) {
  const raw = process.env[name];
  if (!raw) {
    process.stderr.write(`optimum: ${name} is not set\n`);
    process.exit(1);
  }
  urls[name] = raw;
  agents[name] = new http.Agent({ keepAlive: true });
}

class UpstreamError extends Error {}

/** GET an operation: the parsed body on 2xx, null on 404 (absence is data), else throws. */
function get(operation: OperationName, params: Record<string, string>, bearer: string): Promise<unknown> {
  const agent = agents[CONTRACT[operation].host];
  const path = CONTRACT[operation].path;
  return new Promise((resolve, reject) => {
    const req = http.get(
      operationUrl(urls, operation, params),
      { agent, headers: { authorization: `Bearer ${bearer}`, accept: 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', reject);
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status === 404) return resolve(null);
          if (status < 200 || status > 299) return reject(new UpstreamError(`${path}: ${status}`));
          try {
            resolve(JSON.parse(text));
          } catch {
            reject(new UpstreamError(`${path}: malformed JSON`));
          }
        });
      },
    );
    req.setTimeout(TIMEOUT_MS, () => req.destroy(new UpstreamError(`${path}: timeout`)));
    req.on('error', reject);
  });
}

interface OrderJson {
  id: string;
  reservationId: string;
}

/** The calls made for each order (those made once for the customer besides it and its orders are CUSTOMER_LEVEL_OPERATIONS). */
const PER_ORDER = OPERATION_NAMES.filter(isPerOrder);

/** A call's parameters as the whole order passes them: from the order, a required argument at its first allowed value, an optional one left out. */
const paramsFor = (operation: OperationName, order: OrderJson | null) =>
  paramValues(operation, (source) => ('order' in source ? order![source.order] : source.required ? source.enum?.[0] : undefined));

async function wholeOrder(bearer: string) {
  const [customer, orders, ...customerLevel] = await Promise.all([
    get('customerDetails', {}, bearer),
    get('orderDetails', {}, bearer) as Promise<OrderJson[] | null>,
    ...CUSTOMER_LEVEL_OPERATIONS.map((operation) => get(operation, paramsFor(operation, null), bearer)),
  ]);
  if (customer === null || !Array.isArray(orders)) throw new UpstreamError('customer or order list missing');
  const wholeOrders = await Promise.all(
    orders.map(async (order) => {
      const answers = await Promise.all(PER_ORDER.map((operation) => get(operation, paramsFor(operation, order), bearer)));
      return { ...order, ...Object.fromEntries(PER_ORDER.map((operation, index) => [operation, answers[index]])) };
    }),
  );
  return {
    customer: {
      ...customer,
      ...Object.fromEntries(CUSTOMER_LEVEL_OPERATIONS.map((operation, index) => [operation, customerLevel[index]])),
    },
    orders: wholeOrders,
  };
}

function reply(res: http.ServerResponse, status: number, payload: unknown) {
  const text = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  req.resume();
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (!bearer) return reply(res, 401, { error: 'missing bearer token' });
  wholeOrder(bearer).then(
    (body) => reply(res, 200, body),
    (error: unknown) => reply(res, 502, { error: error instanceof UpstreamError ? error.message : 'failed' }),
  );
});

server.listen(Number(process.env.OPTIMUM_PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/` })}\n`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
