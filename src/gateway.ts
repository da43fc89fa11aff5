import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { createSchema, createYoga, type GraphiQLOptions, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { LIMITS } from './limits.js';
import { useHardening, useRequestLifecycle } from './plugins.js';
import type { Config, UpstreamUrls } from './config.js';
import { createContextFactory, type GraphQLContext } from './context.js';
import { resolvers } from './resolvers/index.js';
import { createUpstreamHttp } from './upstream/http.js';

const SCHEMA_DIR = new URL('../schema/', import.meta.url);
const WHOLE_ORDER_DOCUMENT = new URL('./client/documents/whole-order.graphql', import.meta.url);
const LOGIN_DOCUMENT = new URL('./client/documents/login.graphql', import.meta.url);
const TRUSTED_DOCUMENTS = new URL('./client/__generated__/persisted-documents.json', import.meta.url);

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

/**
 * Serves GraphiQL from the package itself (no CDN), rendered and gzipped once on first use:
 * the page is about 9 MB, 2.4 MB compressed, and compressing it per request would cost
 * half a second of CPU each time. The package (about 70 MB of memory) loads only then.
 */
function useGraphiQLPage(options: GraphiQLOptions): Plugin {
  let page: Promise<{ html: string; gzipped: Uint8Array<ArrayBuffer> }> | undefined;
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'GET' || url.pathname !== '/graphql' || !request.headers.get('accept')?.includes('text/html')) return;
      page ??= import('@graphql-yoga/render-graphiql').then(({ renderGraphiQL }) => {
        const html = renderGraphiQL({ endpoint: '/graphql', ...options });
        return { html, gzipped: Uint8Array.from(gzipSync(html)) };
      });
      const { html, gzipped } = await page;
      const gzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
      endResponse(
        new fetchAPI.Response(gzip ? gzipped : html, {
          headers: { 'content-type': 'text/html; charset=utf-8', vary: 'accept-encoding', ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
        }),
      );
    },
  };
}

/**
 * Accepts the SDK's documents by hash (the client preset's manifest); in `only` mode
 * nothing else runs, so a stolen token cannot be used to run arbitrary queries.
 */
function useTrustedDocuments(mode: 'allow' | 'only') {
  const manifest = new Map(Object.entries(JSON.parse(readFileSync(TRUSTED_DOCUMENTS, 'utf8')) as Record<string, string>));
  const refused = (message: string, code: string) => ({ message, extensions: { code, http: { status: 400 } } });
  return usePersistedOperations({
    // The manifest keys are "sha256:<hex>"; Apollo-style clients send the bare hex.
    getPersistedOperation: (key) => manifest.get(key) ?? manifest.get(`sha256:${key}`) ?? null,
    allowArbitraryOperations: mode === 'allow',
    customErrors: {
      notFound: refused('This document is not one of the trusted documents: send the hash of a registered document.', 'PERSISTED_QUERY_NOT_FOUND'),
      persistedQueryOnly: refused(
        'Only trusted documents run here: send extensions.persistedQuery.sha256Hash of a registered document instead of a query.',
        'PERSISTED_QUERY_ONLY',
      ),
      keyNotFound: refused('Send a query, or the hash of a trusted document in extensions.persistedQuery.sha256Hash.', 'PERSISTED_QUERY_ID_REQUIRED'),
    },
  });
}

export type GatewayConfig = Pick<Config, 'upstreamTimeoutMs' | 'upstreamRetries' | 'graphiql' | 'introspection'> &
  Partial<Pick<Config, 'trustedDocuments' | 'requestDeadlineMs'>> & {
  upstreamUrls: UpstreamUrls;
  logger?: Logger;
  demoLogin?: DemoLogin;
};

export interface Gateway {
  yoga: YogaServerInstance<object, GraphQLContext>;
  /** Marks the gateway as stopping: /readyz answers 503 from then on. */
  drain(): void;
  /** Closes the upstream connections; call after the HTTP server stopped taking requests. */
  close(): void;
}

const DEFAULT_DEADLINE_MS = 10_000;

/** Builds the gateway (schema, upstream clients, yoga); listening is the caller's business. */
export function createGateway(config: GatewayConfig): Gateway {
  const http = createUpstreamHttp({
    urls: config.upstreamUrls,
    timeoutMs: config.upstreamTimeoutMs,
    retries: config.upstreamRetries,
    maxBodyBytes: LIMITS.maxUpstreamBodyBytes,
    logger: config.logger,
  });
  const deadlineMs = config.requestDeadlineMs ?? DEFAULT_DEADLINE_MS;
  let ready = true;
  const yoga = createYoga<object, GraphQLContext>({
    schema: createSchema<GraphQLContext>({ typeDefs: loadTypeDefs(), resolvers }),
    context: createContextFactory(http, deadlineMs),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: config.logger ?? false,
    // Unexpected errors become "Unexpected error." with no stack or original message, in
    // every environment: the logs have the detail.
    maskedErrors: { isDev: false },
    maxRequestBodySize: LIMITS.maxRequestBodyBytes,
    batching: false,
    // Served by useGraphiQLPage, precompressed.
    graphiql: false,
    plugins: [
      useRequestLifecycle({ logger: config.logger, deadlineMs, isReady: () => ready }),
      ...useHardening({ introspection: config.introspection }),
      ...(config.graphiql ? [useGraphiQLPage({ title: 'Order Graph', defaultTabs: graphiqlTabs(config.demoLogin) })] : []),
      useGraphQlJit(),
      ...(config.introspection ? [] : [useDisableIntrospection()]),
      ...(config.trustedDocuments && config.trustedDocuments !== 'off' ? [useTrustedDocuments(config.trustedDocuments)] : []),
    ],
  });
  return {
    yoga,
    drain: () => {
      ready = false;
    },
    close: () => http.close(),
  };
}
