// The test kit: the simulator and the gateway in this process by default (no socket: a
// gateway's requests go to yoga's fetch, as fetch over a socket would deliver them
// (in-process-fetch.ts), its upstream calls to the simulator's handler through
// in-process-transport.ts), or each on a real HTTP server on port 0 where the socket is the
// subject; a graphql-request client and a fetch for either.
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { GraphQLClient, type Variables } from 'graphql-request';
import { LIVE_POLL_INTERVAL_MS, loadConfig } from '../../src/server/config.js';
import { createGateway, type GatewayConfig } from '../../src/server/gateway.js';
import { createHttpServer, type HttpServerOptions } from '../../src/server/http-server.js';
import type { ServerContext } from '../../src/server/request-scope.js';
import {
  createSimulator,
  startSimulator,
  type InProcessSimulator,
  type Simulator,
  type SimulatorOptions,
} from '../../src/simulator/server.js';
import { LoginDocument } from '../../src/client/__generated__/graphql.js';
import { demoCustomer } from './demo.js';
import { captureLogger } from './log-capture.js';
import { inProcessFetch } from './in-process-fetch.js';
import { inProcessTransport, type InProcessUpstream } from './in-process-transport.js';

export interface Harness {
  /** In this process either way: reachable without a socket too. */
  simulator: InProcessSimulator;
  endpoint: string;
  /** A graphql-request client that returns `{ data, errors }` instead of throwing on errors. */
  client(token?: string | null): GraphQLClient;
  /** A request to the gateway, as fetch takes it: a path on its origin, or a URL of it (`endpoint`). */
  fetch: GatewayFetch;
  /** Logs a demo customer in through the gateway; returns the access token. */
  login(username: string): Promise<string>;
  close(): Promise<void>;
}

/** Listens on a free loopback port; resolves to the base URL. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 2048 }, resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Settings a test gives: any of the gateway's, the live and byte ones each on its own. */
export type TestGatewayConfig = Partial<Omit<GatewayConfig, 'live' | 'bytes'> & HttpServerOptions> & {
  live?: Partial<GatewayConfig['live']>;
  bytes?: Partial<GatewayConfig['bytes']>;
};

/** What a test's gateway is in front of: the upstream's URLs, or an in-process upstream (the simulator's or a stub's `handle`). */
export type TestUpstream = Pick<GatewayConfig, 'upstreamUrls'> | { upstream: InProcessUpstream };

/** A request to a test's gateway, as fetch takes it: a path on its origin, a URL of it, or a Request. */
export type GatewayFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** A fetch of the gateway at `origin`: a path is resolved against it. */
const resolved = (origin: string, input: string | URL | Request) => (input instanceof Request ? input : new URL(input, origin));

/** The gateway's settings for a test: the defaults, the logger of log-capture.ts, and what the test gives. */
function testSettings(config: TestGatewayConfig & TestUpstream) {
  const defaults = loadConfig({});
  const { upstream, ...given } = { upstream: undefined, ...config };
  const inProcess = upstream ? { upstreamUrls: upstream.urls, upstreamTransport: inProcessTransport(upstream) } : {};
  return {
    ...defaults,
    tracing: undefined,
    upstreamTimeoutMs: 2000,
    // Every test gateway logs at debug into the capture that test/setup/no-secrets-in-logs checks.
    logger: captureLogger(),
    // Notifications only where a test turns them on: in front of a test's simulator, as in front
    // of the real service without NOTIFY_TOKEN_KEYS (npm start's demo turns them on).
    notify: null,
    ...(given as TestGatewayConfig & Pick<GatewayConfig, 'upstreamUrls'>),
    ...inProcess,
    // In front of a test's simulator, as in front of the real service: the 30 s default (the
    // 5 s one is npm start's, in front of its embedded simulator).
    live: { ...defaults.live, pollIntervalMs: LIVE_POLL_INTERVAL_MS, ...config.live },
    bytes: { ...defaults.bytes, ...config.bytes },
  };
}

/** A gateway as a test uses it, in process or on a socket alike. */
export interface TestGateway {
  /** Its base URL: for one in process, a loopback address nothing listens on (its `fetch` takes it). */
  origin: string;
  endpoint: string;
  fetch: GatewayFetch;
  /** A graphql-request client of it that returns `{ data, errors }` instead of throwing on errors. */
  client(token?: string | null): GraphQLClient;
  drain(): Promise<void>;
  close(): Promise<void>;
}

/** Where a gateway in process is said to be: the loopback address a client on a socket would come from and reach (no port: nothing listens). */
const IN_PROCESS_ORIGIN = 'http://127.0.0.1';

/**
 * The gateway in this process, with no socket in front of it: requests go to yoga's `fetch`,
 * as from a client on the loopback address (where the HTTP server is not the subject). In
 * front of an in-process upstream (`upstream`: the simulator, a stub) no socket is used at
 * all. `post` sends a GraphQL request as JSON.
 */
export function inProcessGateway(config: TestGatewayConfig & TestUpstream) {
  const gateway = createGateway(testSettings(config));
  // What the HTTP server would give yoga: the Node request, of which the scope reads the client's address.
  const serverContext: ServerContext = { req: { socket: { remoteAddress: '127.0.0.1' } } as IncomingMessage };
  const fetch: GatewayFetch = inProcessFetch((request, init) =>
    request instanceof Request
      ? gateway.yoga.fetch(request, serverContext)
      : gateway.yoga.fetch(new URL(request, IN_PROCESS_ORIGIN), init, serverContext),
  );
  const post = async (body: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const response = await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: ResponseError[] } };
  };
  const endpoint = `${IN_PROCESS_ORIGIN}/graphql`;
  return {
    gateway,
    origin: IN_PROCESS_ORIGIN,
    endpoint,
    fetch,
    client: (token?: string | null) => graphqlClient(endpoint, token, fetch),
    post,
    drain: gateway.drain,
    close: () => gateway.close(),
  } satisfies TestGateway & Record<string, unknown>;
}

/**
 * The gateway on port 0 behind the same HTTP server as `npm start`, in front of the given
 * upstream URLs (or an in-process upstream, where only the gateway's socket is the subject),
 * with the default settings unless given: for tests whose subject is the socket.
 */
export async function startGateway(config: TestGatewayConfig & TestUpstream): Promise<TestGateway> {
  const settings = testSettings(config);
  const gateway = createGateway(settings);
  const http = createHttpServer(gateway.yoga, { ...settings, onCut: gateway.onConnectionCut, onUpgrade: gateway.onUpgrade });
  const origin = `http://127.0.0.1:${await http.listen(0, '127.0.0.1')}`;
  const endpoint = `${origin}/graphql`;
  return {
    origin,
    endpoint,
    fetch: (input, init) => fetch(resolved(origin, input), init),
    client: (token) => graphqlClient(endpoint, token),
    drain: gateway.drain,
    async close() {
      http.server.closeAllConnections();
      await new Promise((resolve) => http.server.close(resolve));
      await gateway.close();
    },
  };
}

/** A graphql-request client of the endpoint (over `fetch` when given: an in-process gateway's). */
export function graphqlClient(endpoint: string, token?: string | null, fetch?: GatewayFetch): GraphQLClient {
  return new GraphQLClient(endpoint, {
    errorPolicy: 'all',
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(fetch ? { fetch } : {}),
  });
}

export interface HarnessOptions {
  simulator?: SimulatorOptions;
  gateway?: TestGatewayConfig;
  /**
   * The simulator and the gateway each on a real HTTP server on port 0, for tests whose
   * subject is the socket (connections, transports, processes, the shipped topology). By
   * default both are in this process and no socket is used.
   */
  sockets?: boolean;
}

/** The simulator and the gateway in front of it: in process by default, each on port 0 with `sockets`. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const simulatorOptions = { latencyMs: 0, ...options.simulator };
  const simulator = options.sockets ? await startSimulator(simulatorOptions) : createSimulator(simulatorOptions);
  const gateway: TestGateway = options.sockets
    ? await startGateway({ upstreamUrls: simulator.urls, ...options.gateway })
    : inProcessGateway({ upstream: simulator, ...options.gateway });
  return {
    simulator,
    endpoint: gateway.endpoint,
    client: gateway.client,
    fetch: gateway.fetch,
    async login(username) {
      const { data, errors } = await execute(gateway.client(), LoginDocument, {
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
