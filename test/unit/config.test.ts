import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/server/config.js';
import { HOSTS } from '../../src/upstream/contract.js';

const allUrls = Object.fromEntries(HOSTS.map((name) => [name, `http://upstream.test/${name.toLowerCase()}`]));

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('has the documented defaults, and no upstream means the simulator', () => {
    expect(loadConfig({})).toEqual({
      port: 4000,
      host: '127.0.0.1',
      upstreamUrls: null,
      upstreamTimeoutMs: 5000,
      upstreamRetries: 1,
      requestDeadlineMs: 10_000,
      shutdownGraceMs: 10_000,
      logLevel: 'info',
      graphiql: true,
      introspection: true,
      trustedDocuments: 'off',
    });
  });

  it('takes all five upstream URLs, path prefixes included', () => {
    expect(loadConfig({ ...allUrls, ORDER_URL: 'https://orders.internal:8080/api/order' }).upstreamUrls).toMatchObject({
      ORDER_URL: 'https://orders.internal:8080/api/order',
      AUTH_URL: 'http://upstream.test/auth_url',
    });
  });

  it('reads every setting', () => {
    expect(
      loadConfig({
        PORT: '8080',
        HOST: '0.0.0.0',
        UPSTREAM_TIMEOUT_MS: '250',
        UPSTREAM_RETRIES: '0',
        LOG_LEVEL: 'debug',
        GRAPHIQL: 'off',
        INTROSPECTION: 'false',
        TRUSTED_DOCUMENTS: 'only',
      }),
    ).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      upstreamTimeoutMs: 250,
      upstreamRetries: 0,
      logLevel: 'debug',
      graphiql: false,
      introspection: false,
      trustedDocuments: 'only',
    });
  });

  it('NODE_ENV=production turns GraphiQL and introspection off unless they are set', () => {
    expect(loadConfig({ NODE_ENV: 'production' })).toMatchObject({ graphiql: false, introspection: false });
    expect(loadConfig({ NODE_ENV: 'production', GRAPHIQL: 'on', INTROSPECTION: 'on' })).toMatchObject({ graphiql: true, introspection: true });
  });

  it('refuses a partial upstream, naming each missing variable', () => {
    const found = problems({ AUTH_URL: 'http://a', ORDER_URL: 'http://o' });
    expect(found).toHaveLength(1);
    expect(found[0]).toContain('APPOINTMENT_URL, PRICE_CALCULATOR_URL, TRADE_IN_URL missing');
  });

  it.each([
    ['PORT', 'eighty', 'PORT must be a whole number from 0 to 65535'],
    ['PORT', '70000', 'PORT must be at most 65535'],
    ['UPSTREAM_TIMEOUT_MS', '0', 'UPSTREAM_TIMEOUT_MS must be at least 1'],
    ['UPSTREAM_TIMEOUT_MS', '1.5', 'UPSTREAM_TIMEOUT_MS must be a whole number from 1 to 600000'],
    ['UPSTREAM_RETRIES', '9', 'UPSTREAM_RETRIES must be at most 5'],
    ['REQUEST_DEADLINE_MS', 'soon', 'REQUEST_DEADLINE_MS must be a whole number from 1 to 600000'],
    ['SHUTDOWN_GRACE_MS', '700000', 'SHUTDOWN_GRACE_MS must be at most 600000'],
    ['LOG_LEVEL', 'loud', 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent'],
    ['GRAPHIQL', 'maybe', 'GRAPHIQL must be on or off'],
    ['INTROSPECTION', 'yes please', 'INTROSPECTION must be on or off'],
    ['TRUSTED_DOCUMENTS', 'sometimes', 'TRUSTED_DOCUMENTS must be one of off, allow, only'],
  ])('%s=%s: "%s"', (name, value, message) => {
    expect(problems({ [name]: value })).toEqual([message]);
  });

  it.each(HOSTS)('%s must be an http(s) URL', (name) => {
    const found = problems({ ...allUrls, [name]: 'ftp://files.internal/x' });
    expect(found).toEqual([`${name} must be an http(s) URL without query or fragment, e.g. http://orders.internal:8080/api`]);
  });

  it('reports every problem at once', () => {
    const found = problems({ PORT: '-1', LOG_LEVEL: 'x', GRAPHIQL: 'x', AUTH_URL: 'not a url' });
    expect(found).toHaveLength(5);
    expect(found.join('\n')).toMatch(/^PORT .*\n^LOG_LEVEL .*\n^GRAPHIQL .*\n^AUTH_URL must be an http\(s\) URL.*\n^Upstream configured only in part/m);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', AUTH_URL: ' ' }).port).toBe(4000);
  });
});
