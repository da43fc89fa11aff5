// SUBGRAPH=on: the gateway as an Apollo Federation v2 subgraph, composed with a second
// subgraph by @theguild/federation-composition and queried through a real gateway runtime
// (Hive Gateway), in this process, over real HTTP to both subgraphs.
import { createServer, type Server } from 'node:http';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import * as httpTransport from '@graphql-mesh/transport-http';
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/server.js';
import { demoCustomer, demoOrders, demoToken } from '../helpers/demo.js';
import { graphqlClient, listen, startGateway } from '../helpers/harness.js';

let simulator: Simulator;
let orders: Awaited<ReturnType<typeof startGateway>>;
let deliveries: Server;
let deliveriesUrl: string;
let token: string;
let own: { id: string };
let foreign: { id: string };

// A second team's subgraph: deliveries that name orders by id (one of the caller's, one not).
const DELIVERIES_SDL = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key"])
  type Query { deliveries: [Delivery!]! }
  type Delivery { id: ID! order: Order }
  type Order @key(fields: "id", resolvable: false) { id: ID! }
`;

beforeAll(async () => {
  simulator = await startSimulator({ latencyMs: 0 });
  orders = await startGateway({ upstreamUrls: simulator.urls, subgraph: true });
  own = demoOrders(simulator, 'ready@demo.test')[0]!;
  foreign = demoOrders(simulator, 'production@demo.test')[0]!;
  token = await demoToken(simulator, 'ready@demo.test');
  const schema = buildSubgraphSchema([
    {
      typeDefs: parse(DELIVERIES_SDL),
      resolvers: {
        Query: {
          deliveries: () => [
            { id: 'd1', order: { id: own.id } },
            { id: 'd2', order: { id: foreign.id } },
          ],
        },
      },
    },
  ]);
  deliveries = createServer(createYoga({ schema, logging: false }));
  deliveriesUrl = `${await listen(deliveries)}/graphql`;
});
afterAll(async () => {
  await orders?.close();
  deliveries?.close();
  await simulator?.close();
});

/** Our subgraph's SDL as a gateway fetches it. */
async function serviceSdl(): Promise<string> {
  const response = await graphqlClient(orders.endpoint).rawRequest<{ _service: { sdl: string } }>('{ _service { sdl } }');
  return response.data._service.sdl;
}

describe('SUBGRAPH=on', () => {
  it('serves _service { sdl } with Order and Customer as entities keyed by id', async () => {
    const sdl = await serviceSdl();
    expect(sdl).toContain('@link(url: "https://specs.apollo.dev/federation/v2.9"');
    expect(sdl).toMatch(/type Order\b[^{]*@key\(fields: "id"\)/);
    expect(sdl).toMatch(/type Customer\b[^{]*@key\(fields: "id"\)/);
  });

  it('_entities honours ownership: the caller’s order and customer resolve, another customer’s do not, with no call for them', async () => {
    const customerId = demoCustomer(simulator, 'ready@demo.test').userId;
    const otherCustomer = demoCustomer(simulator, 'production@demo.test').userId;
    simulator.clearLog();
    const { data, errors } = await graphqlClient(orders.endpoint, token).rawRequest<{ _entities: unknown[] }>(
      `query ($representations: [_Any!]!) { _entities(representations: $representations) {
        ... on Order { id status vehicle { vin } } ... on Customer { id email } } }`,
      {
        representations: [
          { __typename: 'Order', id: own.id },
          { __typename: 'Order', id: foreign.id },
          { __typename: 'Customer', id: customerId },
          { __typename: 'Customer', id: otherCustomer },
        ],
      },
    );
    expect(errors).toBeUndefined();
    expect(data._entities).toEqual([
      { id: own.id, status: 'READY_FOR_PICKUP', vehicle: { vin: expect.stringMatching(/^\w{17}$/) } },
      null,
      { id: customerId, email: 'ready@demo.test' },
      null,
    ]);
    expect(simulator.requestLog.flatMap((entry) => entry.orderIds)).not.toContain(foreign.id);
  });

  it('composes with another subgraph and answers through Hive Gateway, the caller’s token passed on', async () => {
    const composed = composeServices([
      { name: 'orders', typeDefs: parse(await serviceSdl()), url: orders.endpoint },
      { name: 'deliveries', typeDefs: parse(DELIVERIES_SDL), url: deliveriesUrl },
    ]);
    expect('errors' in composed ? composed.errors : []).toEqual([]);
    const gateway = createGatewayRuntime({
      supergraph: (composed as { supergraphSdl: string }).supergraphSdl,
      logging: false,
      transports: { http: httpTransport },
      propagateHeaders: { fromClientToSubgraphs: ({ request }) => ({ authorization: request.headers.get('authorization') }) },
    });
    try {
      simulator.clearLog();
      const response = await gateway.fetch('http://gateway/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: '{ deliveries { id order { id status pickup { name } } } }' }),
      });
      const { data, errors } = (await response.json()) as {
        data: { deliveries: { id: string; order: unknown }[] };
        errors?: { path: unknown[] }[];
      };
      // The other customer's order is null from our subgraph; the gateway says so on the field it
      // could not fill, and nulls the order.
      expect(errors?.map((error) => error.path)).toEqual([['deliveries', 1, 'order', 'status']]);
      expect(data.deliveries).toEqual([
        { id: 'd1', order: { id: own.id, status: 'READY_FOR_PICKUP', pickup: { name: expect.any(String) } } },
        { id: 'd2', order: null },
      ]);
      // The entity lookup went upstream with the caller's own token, and never for the foreign order.
      expect(simulator.requestLog.every((entry) => entry.bearer === token)).toBe(true);
      expect(simulator.requestLog.flatMap((entry) => entry.orderIds)).not.toContain(foreign.id);
    } finally {
      await gateway.dispose();
    }
  });

  it('off by default: no _service', async () => {
    const plain = await startGateway({ upstreamUrls: simulator.urls });
    try {
      const response = await fetch(plain.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query: '{ _service { sdl } }' }),
      });
      expect(response.status).toBe(400);
      expect(JSON.stringify(await response.json())).toContain('Cannot query field \\"_service\\" on type \\"Query\\"');
    } finally {
      await plain.close();
    }
  });
});
