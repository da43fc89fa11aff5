import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { GraphQLClient, type Variables } from 'graphql-request';
import { LIVE_POLL_INTERVAL_MS, loadConfig } from '../../src/server/config.js';
import { createGateway, type GatewayConfig } from '../../src/server/gateway.js';
import { createHttpServer, type HttpServerOptions } from '../../src/server/http-server.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/server.js';
import { LoginDocument } from '../../src/client/__generated__/graphql.js';
import { demoCustomer } from './demo.js';
import { captureLogger } from './log-capture.js';

export interface Harness {
  simulator: Simulator;
  endpoint: string;
  /** A graphql-request client that returns `{ data, errors }` instead of throwing on errors. */
  client(token?: string | null): GraphQLClient;
  /** Logs a demo customer in through the gateway; returns the access token. */
  login(username: string): Promise<string>;
  close(): Promise<void>;
}

/** Listens on a free loopback port; resolves to the base URL. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 2048 }, resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Settings a test gives: any of the gateway's, the live ones each on its own. */
export type TestGatewayConfig = Partial<Omit<GatewayConfig, 'live'> & HttpServerOptions> & { live?: Partial<GatewayConfig['live']> };

/** The gateway's settings for a test: the defaults, the logger of log-capture.ts, and what the test gives. */
function testSettings(config: TestGatewayConfig & Pick<GatewayConfig, 'upstreamUrls'>) {
  const defaults = loadConfig({});
  return {
    ...defaults,
    tracing: undefined,
    upstreamTimeoutMs: 2000,
    // Every test gateway logs at debug into the capture that test/setup/no-secrets-in-logs checks.
    logger: captureLogger(),
    ...config,
    // In front of a simulator it was given by URL, as in front of the real service: the 30 s
    // default (the 5 s one is npm start's, in front of its embedded simulator).
    live: { ...defaults.live, pollIntervalMs: LIVE_POLL_INTERVAL_MS, ...config.live },
  };
}

/**
 * The gateway in this process, with no socket in front of it: requests go to yoga's `fetch`
 * (where the HTTP server is not the subject). `post` sends a GraphQL request as JSON.
 */
export function inProcessGateway(config: TestGatewayConfig & Pick<GatewayConfig, 'upstreamUrls'>) {
  const gateway = createGateway(testSettings(config));
  const post = async (body: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const response = await gateway.yoga.fetch('http://gateway/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: ResponseError[] } };
  };
  return { gateway, post, close: () => gateway.close() };
}

/**
 * The gateway on port 0 in front of the given upstream URLs, behind the same HTTP server as
 * `npm start`, with the default settings unless given.
 */
export async function startGateway(config: TestGatewayConfig & Pick<GatewayConfig, 'upstreamUrls'>) {
  const settings = testSettings(config);
  const gateway = createGateway(settings);
  const http = createHttpServer(gateway.yoga, { ...settings, onCut: gateway.onConnectionCut, onUpgrade: gateway.onUpgrade });
  const origin = `http://127.0.0.1:${await http.listen(0, '127.0.0.1')}`;
  return {
    origin,
    endpoint: `${origin}/graphql`,
    drain: gateway.drain,
    async close() {
      http.server.closeAllConnections();
      await new Promise((resolve) => http.server.close(resolve));
      await gateway.close();
    },
  };
}

export function graphqlClient(endpoint: string, token?: string | null): GraphQLClient {
  return new GraphQLClient(endpoint, {
    errorPolicy: 'all',
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
}

/** The simulator and the gateway in front of it, both on port 0. */
export async function startHarness(options: { simulator?: SimulatorOptions; gateway?: TestGatewayConfig } = {}): Promise<Harness> {
  const simulator = await startSimulator({ latencyMs: 0, ...options.simulator });
  const gateway = await startGateway({ upstreamUrls: simulator.urls, ...options.gateway });
  return {
    simulator,
    endpoint: gateway.endpoint,
    client: (token) => graphqlClient(gateway.endpoint, token),
    async login(username) {
      const { data, errors } = await execute(graphqlClient(gateway.endpoint), LoginDocument, {
        username,
        password: demoCustomer(simulator, username).password,
      });
      if (!data?.login) throw new Error(`login failed: ${JSON.stringify(errors)}`);
      return data.login.accessToken;
    },
    async close() {
      await gateway.close();
      await simulator.close();
    },
  };
}

/** How many upstream calls each operation received, from the simulator's request log. */
export function callCounts(simulator: Simulator): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of simulator.requestLog) counts[entry.operation] = (counts[entry.operation] ?? 0) + 1;
  return counts;
}

/** An error as the gateway sends it. */
export interface ResponseError {
  message: string;
  path?: ReadonlyArray<string | number>;
  extensions?: Record<string, unknown>;
}

/** Sends a typed document; resolves to its typed `data` and the `errors` (empty when none). */
export async function execute<TResult, TVariables extends Variables>(
  client: GraphQLClient,
  document: TypedDocumentNode<TResult, TVariables>,
  variables?: TVariables,
): Promise<{ data: TResult | null | undefined; errors: ResponseError[] }> {
  const response = await client.rawRequest<TResult, TVariables>(print(document), variables);
  return { data: response.data, errors: (response.errors ?? []) as unknown as ResponseError[] };
}
