import { readFileSync, readdirSync } from 'node:fs';
import { useContentEncoding } from '@whatwg-node/server';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import { createSchema, createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Config, UpstreamUrls } from './config.js';
import { createContextFactory, type GraphQLContext } from './context.js';
import { resolvers } from './resolvers/index.js';
import { createUpstreamHttp } from './upstream/http.js';

const SCHEMA_DIR = new URL('../schema/', import.meta.url);
const WHOLE_ORDER_DOCUMENT = new URL('./client/documents/whole-order.graphql', import.meta.url);
const LOGIN_DOCUMENT = new URL('./client/documents/auth.graphql', import.meta.url);

/** The SDL, one file per domain, read once per process. */
export function loadTypeDefs(): string[] {
  return readdirSync(SCHEMA_DIR)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => readFileSync(new URL(name, SCHEMA_DIR), 'utf8'));
}

// GraphiQL's first tab: how to sign in, then the whole order.
function graphiqlDefaultQuery(): string {
  const login = readFileSync(LOGIN_DOCUMENT, 'utf8');
  const wholeOrder = readFileSync(WHOLE_ORDER_DOCUMENT, 'utf8');
  return `# Welcome to Order Graph: one request for a customer's whole order.
#
# 1. Run "Login" (press the run button and pick it) with a demo customer's username
#    and password, printed by "npm start".
# 2. Copy "accessToken" from the result into the Headers tab below:
#      { "Authorization": "Bearer <accessToken>" }
# 3. Run "WholeOrder".

${login}
${wholeOrder}`;
}

export type GatewayConfig = Pick<Config, 'upstreamTimeoutMs' | 'upstreamRetries' | 'graphiql' | 'introspection'> & {
  upstreamUrls: UpstreamUrls;
  logger?: Logger;
};

export interface Gateway {
  yoga: YogaServerInstance<object, GraphQLContext>;
  /** Closes the upstream connections; call after the HTTP server stopped taking requests. */
  close(): void;
}

/** Builds the gateway (schema, upstream clients, yoga); listening is the caller's business. */
export function createGateway(config: GatewayConfig): Gateway {
  const http = createUpstreamHttp({
    urls: config.upstreamUrls,
    timeoutMs: config.upstreamTimeoutMs,
    retries: config.upstreamRetries,
  });
  const yoga = createYoga<object, GraphQLContext>({
    schema: createSchema<GraphQLContext>({ typeDefs: loadTypeDefs(), resolvers }),
    context: createContextFactory(http),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: config.logger ?? false,
    graphiql: config.graphiql && { title: 'Order Graph', defaultQuery: graphiqlDefaultQuery() },
    renderGraphiQL,
    plugins: [
      useContentEncoding(),
      ...(config.introspection ? [] : [useDisableIntrospection()]),
    ],
  });
  return { yoga, close: () => http.close() };
}
