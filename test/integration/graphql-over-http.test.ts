import { serverAudits, type AuditResult } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, startHarness, type Harness } from '../helpers/harness.js';

// GraphQL over HTTP conformance: graphql-http's server audits against the running gateway,
// over real HTTP: every audit passes, with or without the CSRF header (with introspection
// off, those that need it are pinned below).

let harness: Harness;
let production: { endpoint: string; close(): Promise<void> };

beforeAll(async () => {
  harness = await startHarness({ sockets: true });
  // What production runs: no GraphiQL, no introspection.
  production = await startGateway({ upstreamUrls: harness.simulator.urls, graphiql: false, introspection: false });
});
afterAll(async () => {
  await production?.close();
  await harness?.close();
});

/** Runs every audit in turn (they are quick, and the log stays readable). */
async function audit(url: string, fetchFn?: typeof fetch): Promise<AuditResult[]> {
  const results: AuditResult[] = [];
  for (const { fn } of serverAudits({ url, ...(fetchFn ? { fetchFn } : {}) })) results.push(await fn());
  return results;
}

/** What a browser page of the same origin (or any client that is not a form) sends. */
const withCsrfHeader: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('x-graphql-yoga-csrf', '1');
  return fetch(input, { ...init, headers });
};

// With INTROSPECTION=off: the four {variables} audits send
// `query Type($name: String!) { __type(name: $name) { name } }`, an introspection query, so
// the gateway rightly refuses it there (GRAPHQL_VALIDATION_FAILED). Not a conformance gap:
// the same audits pass with introspection on (above). Pinned with their outcome.
const INTROSPECTION_OFF_FAILURES: Record<string, { status: AuditResult['status']; reason: string }> = {
  '2EA1': { status: 'warn', reason: 'Response status code is not 200' },
  '28B9': { status: 'error', reason: 'Response body execution result has a property "errors"' },
  D6D5: { status: 'notice', reason: 'Response status code is not 200' },
  '6A70': { status: 'notice', reason: 'Response body execution result has a property "errors"' },
};

describe('GraphQL over HTTP (graphql-http serverAudits)', () => {
  it('a client without the CSRF header (GET queries need none): every audit passes', async () => {
    const results = await audit(harness.endpoint);
    expect(results.length).toBeGreaterThanOrEqual(60);
    expect(
      results
        .filter((r) => r.status !== 'ok')
        .map((r) => ({ id: r.id, name: r.name, status: r.status, reason: 'reason' in r ? r.reason : '' })),
    ).toEqual([]);
  });

  it('a client that sends the CSRF header: every audit passes', async () => {
    const results = await audit(harness.endpoint, withCsrfHeader);
    expect(
      results
        .filter((r) => r.status !== 'ok')
        .map((r) => ({ id: r.id, name: r.name, status: r.status, reason: 'reason' in r ? r.reason : '' })),
    ).toEqual([]);
  });

  it('the production configuration (GraphiQL and introspection off): only the audits that need introspection fail', async () => {
    const results = await audit(production.endpoint);
    const failing = Object.fromEntries(
      results.filter((r) => r.status !== 'ok').map((r) => [r.id, { status: r.status, reason: 'reason' in r ? r.reason : '' }]),
    );
    expect(failing).toEqual(INTROSPECTION_OFF_FAILURES);
  });
});
