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
const LOGIN_DOCUMENT = new URL('./client/documents/login.graphql', import.meta.url);

/** The SDL, one file per domain, read once per process. */
export function loadTypeDefs(): string[] {
  return readdirSync(SCHEMA_DIR)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => readFileSync(new URL(name, SCHEMA_DIR), 'utf8'));
}

/** A login GraphiQL offers pre-filled (the simulator's demo customer); none for a real upstream. */
export interface DemoLogin {
  username: string;
  password: string;
}

// GraphiQL opens on the whole order, with the login one tab away.
function graphiqlTabs(demoLogin: DemoLogin | undefined) {
  const wholeOrder = `# The whole order in one request.
#
# Sign in first: run the "Login" tab, copy "accessToken" from its result, and
# replace the placeholder in the Headers pane below with it:
#   { "Authorization": "Bearer eyJhbGciOi..." }
# Then press the run button here.

${readFileSync(WHOLE_ORDER_DOCUMENT, 'utf8')}`;
  const login = `# Log in: returns the accessToken to send as "Authorization: Bearer <accessToken>".
# ${demoLogin ? 'The variables hold a demo customer of the embedded simulator; npm start printed the others.' : 'Put your username and password in the Variables pane.'}

${readFileSync(LOGIN_DOCUMENT, 'utf8')}`;
  return [
    { query: wholeOrder, headers: JSON.stringify({ Authorization: 'Bearer <paste the accessToken from Login>' }, null, 2) },
    { query: login, variables: JSON.stringify(demoLogin ?? { username: '', password: '' }, null, 2) },
  ];
}

export type GatewayConfig = Pick<Config, 'upstreamTimeoutMs' | 'upstreamRetries' | 'graphiql' | 'introspection'> & {
  upstreamUrls: UpstreamUrls;
  logger?: Logger;
  demoLogin?: DemoLogin;
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
    graphiql: config.graphiql && { title: 'Order Graph', defaultTabs: graphiqlTabs(config.demoLogin) },
    renderGraphiQL,
    plugins: [
      useContentEncoding(),
      ...(config.introspection ? [] : [useDisableIntrospection()]),
    ],
  });
  return { yoga, close: () => http.close() };
}
