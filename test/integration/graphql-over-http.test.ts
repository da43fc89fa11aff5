import { serverAudits, type AuditResult } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, startHarness, type Harness } from '../helpers/harness.js';

// GraphQL over HTTP conformance: graphql-http's server audits against the running gateway,
// over real HTTP. No audit may end in `error`; a `warn` must be one of those pinned below,
// with its reason, so that a new warning fails the test.

let harness: Harness;
let production: { endpoint: string; close(): Promise<void> };

beforeAll(async () => {
  harness = await startHarness();
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

const byStatus = (results: AuditResult[], status: AuditResult['status']) =>
  results.filter((r) => r.status === status).map((r) => ({ id: r.id, name: r.name, ...('reason' in r ? { reason: r.reason } : {}) }));

/** What a browser page of the same origin (or any client that is not a form) sends. */
const withCsrfHeader: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('x-graphql-yoga-csrf', '1');
  return fetch(input, { ...init, headers });
};

// `warn` audits still open, pinned by id with the audit's reason. None today.
const PINNED_WARNINGS: Record<string, string> = {};

// `notice` audits (MAY-level) for a client that sends no CSRF header: CSRF prevention
// refuses every GET without `x-graphql-yoga-csrf` (403), so the optional GET features
// cannot be shown without it. The same audits pass with the header (next test).
const PINNED_NOTICES_WITHOUT_CSRF_HEADER: Record<string, string> = {
  '5A70': 'MAY accept application/x-www-form-urlencoded formatted GET requests: "Response status code is not 200" (403, CSRF header missing)',
  D6D5: 'MAY allow URL-encoded JSON string {variables} parameter in GETs when accepting application/graphql-response+json: "Response status code is not 200" (403, CSRF header missing)',
  '6A70': 'MAY allow URL-encoded JSON string {variables} parameter in GETs when accepting application/json: "Response status code is not 200" (403, CSRF header missing)',
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
  it('a client without the CSRF header: no error, no warning, only the pinned GET notices', async () => {
    const results = await audit(harness.endpoint);
    expect(results.length).toBeGreaterThanOrEqual(60);
    expect(byStatus(results, 'error')).toEqual([]);
    expect(byStatus(results, 'warn').map((r) => r.id).sort()).toEqual(Object.keys(PINNED_WARNINGS).sort());
    const notices = byStatus(results, 'notice');
    expect(notices.map((r) => r.id).sort()).toEqual(Object.keys(PINNED_NOTICES_WITHOUT_CSRF_HEADER).sort());
    for (const notice of notices) expect(notice.reason).toBe('Response status code is not 200');
  });

  it('a client that sends the CSRF header: every audit passes', async () => {
    const results = await audit(harness.endpoint, withCsrfHeader);
    expect(results.filter((r) => r.status !== 'ok').map((r) => ({ id: r.id, name: r.name, status: r.status, reason: 'reason' in r ? r.reason : '' }))).toEqual([]);
  });

  it('the production configuration (GraphiQL and introspection off): only the audits that need introspection fail', async () => {
    const results = await audit(production.endpoint, withCsrfHeader);
    const failing = Object.fromEntries(results.filter((r) => r.status !== 'ok').map((r) => [r.id, { status: r.status, reason: 'reason' in r ? r.reason : '' }]));
    expect(failing).toEqual(INTROSPECTION_OFF_FAILURES);
  });
});
