// The settings (src/server/config.ts): the documented defaults, every variable read, what
// production requires, and each refusal with its one line.
import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { parseCodeLabels } from '../../src/graph/code-labels.js';
import { ConfigError, DEFAULT_UPSTREAM_CALLS, loadConfig, WHOLE_PAGE_BYTES } from '../../src/server/config.js';
import { SIMULATOR_CODE_LABELS } from '../../src/server/config/labels.js';
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
      upstreamClient: 'undici',
      requestDeadlineMs: 10_000,
      upstreamBudget: { calls: DEFAULT_UPSTREAM_CALLS, concurrency: 16, retries: 4 },
      // An eighth of the heap this process runs with.
      bytes: {
        request: 4 * 1024 * 1024,
        inFlight: Math.floor(getHeapStatistics().heap_size_limit / 8),
        shedMs: 1000,
        smallBytes: WHOLE_PAGE_BYTES,
      },
      callerLimits: { operations: 32, upstreamCalls: 64 },
      webSocketIdleTimeoutMs: 30_000,
      loginThrottle: { perUsernameAndAddress: 5, firstDelaySeconds: 30, perUsername: 100, perAddress: 20, windowSeconds: 900 },
      refreshThrottle: { perAddress: 20, perToken: 5, windowSeconds: 900 },
      trustedProxies: [],
      maxConnectionsPerAddress: 256,
      slowReader: { maxUnsentBytes: 1024 * 1024, timeoutMs: 10_000, maxUnsentBytesPerAddress: 8 * 1024 * 1024 },
      documentCacheBytes: 32 * 1024 * 1024,
      history: { bounds: { eventsPerOrder: 100, maxAgeMs: 400 * 86_400_000, customerBytes: 256 * 1024 }, totalBytes: 32 * 1024 * 1024 },
      shutdownGraceMs: 10_000,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5000,
      maxConnections: 4096,
      corsOrigins: 'local',
      logLevel: 'info',
      production: false,
      graphiql: true,
      introspection: true,
      tracker: true,
      trustedDocuments: 'off',
      tracing: null,
      metricsPath: '/metrics',
      // In front of the embedded simulator, the demo's poll interval.
      live: { pollIntervalMs: 5000, perCustomer: 50, perAddress: 200, snapshotBytes: 32 * 1024 * 1024 },
      redisUrl: null,
      redisCommandTimeoutMs: 500,
      // The embedded simulator's labels: no upstream means the simulator.
      codeLabels: parseCodeLabels(readFileSync(SIMULATOR_CODE_LABELS, 'utf8')),
      responseCacheTtlMs: 0,
      responseCacheBytes: { entry: 1024 * 1024, total: 32 * 1024 * 1024 },
      subgraph: false,
      allowedHosts: 'any',
      // In front of the embedded simulator, the demo's notifications: a key made now, private addresses allowed, polls every 5 s.
      notify: {
        tokenKeys: [{ id: 'demo', key: expect.any(Buffer) }],
        demo: true,
        pollIntervalMs: 5000,
        targetsPerCustomer: 5,
        messagesPerHour: 12,
        disableAfterMs: 86_400_000,
        customers: 10_000,
        recordBytes: 256 * 1024,
        totalBytes: 32 * 1024 * 1024,
        queueJobs: 5_000,
        webhookTimeoutMs: 5000,
        allowPrivateAddresses: true,
        trackerUrl: 'http://127.0.0.1:4000/tracker/',
        vapid: null,
        smtpUrl: null,
        emailFrom: 'Order Graph <notifications@localhost>',
      },
    });
  });

  it('notifications: off in front of the real service without NOTIFY_TOKEN_KEYS; on with it, the first key sealing', () => {
    expect(loadConfig(allUrls).notify).toBeNull();
    const one = Buffer.alloc(32, 1).toString('base64');
    const two = Buffer.alloc(32, 2).toString('base64url');
    const notify = loadConfig({ ...allUrls, NOTIFY_TOKEN_KEYS: `new:${one}, old:${two}` }).notify!;
    expect(notify.tokenKeys.map(({ id, key }) => [id, Buffer.from(key)])).toEqual([
      ['new', Buffer.alloc(32, 1)],
      ['old', Buffer.alloc(32, 2)],
    ]);
    expect(notify).toMatchObject({ demo: false, pollIntervalMs: 300_000, allowPrivateAddresses: false, vapid: null });
  });

  it('the demo served in production (SIMULATOR=on) allows no private address unless told to', () => {
    const production = { NODE_ENV: 'production', SIMULATOR: 'on', ALLOWED_HOSTS: 'demo.example.com' };
    expect(loadConfig(production).notify).toMatchObject({ demo: true, allowPrivateAddresses: false });
    expect(loadConfig({ ...production, NOTIFY_ALLOW_PRIVATE_ADDRESSES: 'on' }).notify!.allowPrivateAddresses).toBe(true);
  });

  it('NOTIFY_TOKEN_KEYS that do not fit: one line that never repeats the value (a secret)', () => {
    const short = Buffer.alloc(16, 7).toString('base64');
    const good = Buffer.alloc(32, 7).toString('base64');
    for (const value of [short, `k1:${short}`, `k.1:${good}`, `k1:${good},k1:${good}`, `k1:${good}!`, `:${good}`]) {
      const found = problems({ ...allUrls, NOTIFY_TOKEN_KEYS: value });
      expect(found, value).toEqual([
        'NOTIFY_TOKEN_KEYS must be one or more id:key pairs, comma-separated, each id 1 to 32 of A-Z a-z 0-9 _ - (no id twice) and each key 32 bytes in base64 (openssl rand -base64 32)',
      ]);
      expect(found.join('')).not.toContain(value);
    }
  });

  it('VAPID keys go together, and SMTP_URL is smtp(s)', () => {
    const publicKey = `B${'A'.repeat(86)}`;
    const privateKey = 'A'.repeat(43);
    expect(problems({ VAPID_PUBLIC_KEY: publicKey })).toEqual([
      'VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY go together: set both (npx web-push generate-vapid-keys) or neither',
    ]);
    expect(loadConfig({ VAPID_PUBLIC_KEY: publicKey, VAPID_PRIVATE_KEY: privateKey }).notify!.vapid).toEqual({
      publicKey,
      privateKey,
      subject: 'mailto:notifications@localhost',
    });
    expect(problems({ SMTP_URL: 'http://mail.example.com' })).toEqual([
      'SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtps://user:password@smtp.example.com:465',
    ]);
  });

  it('METRICS_PATH may not be a public path (/graphql, under /tracker/)', () => {
    for (const path of ['/graphql', '/tracker', '/tracker/', '/tracker/metrics'])
      expect(problems({ METRICS_PATH: path }), path).toEqual([
        'METRICS_PATH must be off the public paths (/graphql, /tracker/): e.g. /metrics',
      ]);
    expect(loadConfig({ METRICS_PATH: '/internal/metrics' }).metricsPath).toBe('/internal/metrics');
  });

  it('ALLOWED_HOSTS: any in development; in production it must be set (host names, or * for any)', () => {
    expect(loadConfig({ ALLOWED_HOSTS: 'API.example.com, gateway.internal' }).allowedHosts).toEqual([
      'api.example.com',
      'gateway.internal',
    ]);
    expect(loadConfig({ ALLOWED_HOSTS: '*' }).allowedHosts).toBe('any');
    expect(problems({ NODE_ENV: 'production', ...allUrls })).toEqual([
      'NODE_ENV=production needs ALLOWED_HOSTS: the host names clients reach the gateway by (api.example.com), or * for any (IP addresses are always answered)',
    ]);
    for (const value of ['https://api.example.com', 'api.example.com:443', 'api example', ',']) {
      expect(problems({ ALLOWED_HOSTS: value }), value).toEqual([
        'ALLOWED_HOSTS must be a comma-separated list of host names such as api.example.com (no scheme, no port), or *',
      ]);
    }
  });

  it('tracing is on when an exporter or an OTLP endpoint is set, from the standard OTEL_* variables', () => {
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toBeNull();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_SDK_DISABLED: 'true' }).tracing).toBeNull();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({
      exporter: 'otlp',
      protocol: 'http/protobuf',
      endpoint: 'http://collector:4318/v1/traces',
      serviceName: 'order-graph',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 1,
    });
    // In production one new trace in ten, unless the ratio is set.
    const production = {
      NODE_ENV: 'production',
      ALLOWED_HOSTS: 'api.example.com',
      SIMULATOR: 'on',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
    };
    expect(loadConfig(production).tracing).toMatchObject({ sampler: 'parentbased_traceidratio', samplerRatio: 0.1 });
    expect(loadConfig({ ...production, OTEL_TRACES_SAMPLER_ARG: '1' }).tracing).toMatchObject({ samplerRatio: 1 });
    expect(
      loadConfig({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/otlp/v1/traces',
        OTEL_SERVICE_NAME: 'orders-gateway',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      }).tracing,
    ).toEqual({
      exporter: 'otlp',
      protocol: 'http/json',
      endpoint: 'https://traces.example.com/otlp/v1/traces',
      serviceName: 'orders-gateway',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
    });
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'console' }).tracing).toMatchObject({ exporter: 'console' });
    expect(loadConfig({ METRICS_PATH: 'off' }).metricsPath).toBeNull();
    expect(loadConfig({ METRICS_PATH: '/internal/metrics' }).metricsPath).toBe('/internal/metrics');
  });

  it('takes all five upstream URLs, path prefixes included', () => {
    expect(loadConfig({ ...allUrls, ORDER_URL: 'https://orders.internal:8080/api/order' }).upstreamUrls).toMatchObject({
      ORDER_URL: 'https://orders.internal:8080/api/order',
      AUTH_URL: 'http://upstream.test/auth_url',
    });
  });

  it('polls live customers every 30 s in front of the real service, every 5 s in front of the embedded simulator (the demo); LIVE_POLL_INTERVAL_MS sets it for both', () => {
    expect(loadConfig(allUrls).live.pollIntervalMs).toBe(30_000);
    expect(loadConfig({}).live.pollIntervalMs).toBe(5000);
    expect(loadConfig({ SIMULATOR: 'on', NODE_ENV: 'production', ALLOWED_HOSTS: '*' }).live.pollIntervalMs).toBe(5000);
    expect(loadConfig({ ...allUrls, LIVE_POLL_INTERVAL_MS: '2000' }).live.pollIntervalMs).toBe(2000);
    expect(loadConfig({ LIVE_POLL_INTERVAL_MS: '60000' }).live.pollIntervalMs).toBe(60_000);
  });

  it('reads every setting', () => {
    expect(
      loadConfig({
        PORT: '8080',
        HOST: '0.0.0.0',
        UPSTREAM_TIMEOUT_MS: '250',
        UPSTREAM_RETRIES: '0',
        UPSTREAM_CLIENT: 'got',
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
      upstreamClient: 'got',
      logLevel: 'debug',
      graphiql: false,
      introspection: false,
      trustedDocuments: 'only',
    });
  });

  it('reads the HISTORY settings: off keeps no history at all; the bounds in their units', () => {
    expect(loadConfig({ HISTORY: 'off', HISTORY_EVENTS_PER_ORDER: '5' }).history).toBeNull();
    expect(
      loadConfig({ HISTORY_EVENTS_PER_ORDER: '5', HISTORY_MAX_AGE_DAYS: '2', HISTORY_CUSTOMER_BYTES: '20000', HISTORY_BYTES: '1000000' })
        .history,
    ).toEqual({
      bounds: { eventsPerOrder: 5, maxAgeMs: 2 * 86_400_000, customerBytes: 20_000 },
      totalBytes: 1_000_000,
    });
    expect(() => loadConfig({ HISTORY_EVENTS_PER_ORDER: '0' })).toThrow(/HISTORY_EVENTS_PER_ORDER must be at least 1/);
    expect(() => loadConfig({ HISTORY: 'sometimes' })).toThrow(/HISTORY must be on or off/);
  });

  it('NODE_ENV=production turns GraphiQL, introspection, the tracker page and cross-origin access off unless they are set', () => {
    expect(loadConfig({ NODE_ENV: 'production', ALLOWED_HOSTS: 'api.example.com', ...allUrls })).toMatchObject({
      graphiql: false,
      introspection: false,
      tracker: false,
      corsOrigins: [],
    });
    expect(loadConfig({ NODE_ENV: 'production', ALLOWED_HOSTS: 'api.example.com', ...allUrls, TRACKER: 'on' }).tracker).toBe(true);
    expect(loadConfig({ TRACKER: 'off' }).tracker).toBe(false);
    expect(
      loadConfig({
        NODE_ENV: 'production',
        ALLOWED_HOSTS: 'api.example.com',
        ...allUrls,
        GRAPHIQL: 'on',
        INTROSPECTION: 'on',
        CORS_ORIGINS: 'https://app.example.com, http://localhost:5173',
      }),
    ).toMatchObject({
      graphiql: true,
      introspection: true,
      corsOrigins: ['https://app.example.com', 'http://localhost:5173'],
    });
  });

  it('serves the simulator only without upstream URLs, and in production only when asked for', () => {
    const all = HOSTS.join(', ');
    expect(loadConfig({}).upstreamUrls).toBeNull();
    expect(problems({ NODE_ENV: 'production', ALLOWED_HOSTS: 'api.example.com' })).toEqual([
      `NODE_ENV=production needs the upstream: set ${all} (or SIMULATOR=on to serve the embedded simulator's demo data)`,
    ]);
    expect(loadConfig({ NODE_ENV: 'production', ALLOWED_HOSTS: 'api.example.com', SIMULATOR: 'on' }).upstreamUrls).toBeNull();
    expect(problems({ SIMULATOR: 'off' })).toEqual([`SIMULATOR=off needs the upstream: set ${all}`]);
    expect(problems({ ...allUrls, SIMULATOR: 'on' })).toEqual([
      `SIMULATOR=on serves demo data instead of the upstream: unset ${all}, or SIMULATOR`,
    ]);
    expect(loadConfig({ ...allUrls, SIMULATOR: 'off' }).upstreamUrls).not.toBeNull();
  });

  it('the header deadline cannot be longer than the whole request’s', () => {
    expect(problems({ HEADERS_TIMEOUT_MS: '40000', REQUEST_TIMEOUT_MS: '30000' })).toEqual([
      'HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS (the headers are part of the request)',
    ]);
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
    ['UPSTREAM_CLIENT', 'fetch', 'UPSTREAM_CLIENT must be undici or got'],
    ['REQUEST_DEADLINE_MS', 'soon', 'REQUEST_DEADLINE_MS must be a whole number from 1 to 600000'],
    ['SHUTDOWN_GRACE_MS', '700000', 'SHUTDOWN_GRACE_MS must be at most 600000'],
    ['LOG_LEVEL', 'loud', 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent'],
    ['GRAPHIQL', 'maybe', 'GRAPHIQL must be on or off'],
    ['INTROSPECTION', 'yes please', 'INTROSPECTION must be on or off'],
    ['TRUSTED_DOCUMENTS', 'sometimes', 'TRUSTED_DOCUMENTS must be one of off, allow, only'],
    ['MAX_CONNECTIONS', '0', 'MAX_CONNECTIONS must be at least 1'],
    ['HEADERS_TIMEOUT_MS', '10', 'HEADERS_TIMEOUT_MS must be at least 1000'],
    [
      'CORS_ORIGINS',
      'null',
      'CORS_ORIGINS must be a comma-separated list of origins such as https://app.example.com (scheme, host and port only), or *',
    ],
    [
      'CORS_ORIGINS',
      'https://app.example.com/path',
      'CORS_ORIGINS must be a comma-separated list of origins such as https://app.example.com (scheme, host and port only), or *',
    ],
    ['SIMULATOR', 'perhaps', 'SIMULATOR must be on or off'],
    ['OTEL_TRACES_EXPORTER', 'zipkin', 'OTEL_TRACES_EXPORTER must be one of otlp, console, none'],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc', 'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (grpc is not supported)'],
    ['OTEL_TRACES_SAMPLER_ARG', '1.5', 'OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1'],
    ['METRICS_PATH', 'metrics', 'METRICS_PATH must be a path such as /metrics, or off'],
    ['LIVE_POLL_INTERVAL_MS', '10', 'LIVE_POLL_INTERVAL_MS must be at least 100'],
    ['LIVE_STREAMS_PER_CUSTOMER', '0', 'LIVE_STREAMS_PER_CUSTOMER must be at least 1'],
    ['LIVE_STREAMS_PER_ADDRESS', 'many', 'LIVE_STREAMS_PER_ADDRESS must be a whole number from 1 to 100000'],
    ['REDIS_URL', 'http://redis:6379', 'REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://redis:6379'],
    ['RESPONSE_CACHE_TTL_MS', '120000', 'RESPONSE_CACHE_TTL_MS must be at most 60000'],
    ['SUBGRAPH', 'federated', 'SUBGRAPH must be on or off'],
  ])('%s=%s: "%s"', (name, value, message) => {
    expect(problems({ [name]: value })).toEqual([message]);
  });

  it.each(HOSTS)('%s must be an http(s) URL', (name) => {
    const found = problems({ ...allUrls, [name]: 'ftp://files.internal/x' });
    expect(found).toEqual([`${name} must be an http(s) URL without query or fragment, e.g. http://orders.internal:8080/api`]);
  });

  it('TRUSTED_PROXIES lists the proxies by address; a hop count or a name that is no address is refused', () => {
    expect(loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1,loopback, fd00::/8' }).trustedProxies).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      'loopback',
      'fd00::/8',
    ]);
    expect(problems({ TRUSTED_PROXIES: '1' })).toEqual([
      "TRUSTED_PROXIES takes the proxies' addresses, not a hop count: e.g. 10.0.0.0/8 or loopback",
    ]);
    for (const value of ['nginx', '10.0.0.0/33', '1.2.3', '10.0.0.1/8/8']) {
      expect(problems({ TRUSTED_PROXIES: value }), value).toEqual([
        "TRUSTED_PROXIES must list the proxies' addresses: IPs or CIDR ranges (10.0.0.0/8, 127.0.0.1), or loopback, linklocal, uniquelocal",
      ]);
    }
  });

  it('reads the failed-login and failed-refresh limits', () => {
    const env = {
      LOGIN_FAILURES_PER_USERNAME_AND_ADDRESS: '3',
      LOGIN_FAILURE_DELAY_S: '2',
      LOGIN_FAILURES_PER_USERNAME: '50',
      LOGIN_FAILURES_PER_ADDRESS: '40',
      REFRESH_FAILURES_PER_ADDRESS: '30',
    };
    expect(loadConfig(env)).toMatchObject({
      loginThrottle: { perUsernameAndAddress: 3, firstDelaySeconds: 2, perUsername: 50, perAddress: 40, windowSeconds: 900 },
      refreshThrottle: { perAddress: 30, perToken: 5, windowSeconds: 900 },
    });
    expect(problems({ LOGIN_FAILURE_DELAY_S: '0', REFRESH_FAILURES_PER_ADDRESS: 'x' })).toEqual([
      'LOGIN_FAILURE_DELAY_S must be at least 1',
      'REFRESH_FAILURES_PER_ADDRESS must be a whole number from 1 to 100000',
    ]);
  });

  it('reports every problem at once', () => {
    const found = problems({ PORT: '-1', LOG_LEVEL: 'x', GRAPHIQL: 'x', AUTH_URL: 'not a url' });
    expect(found).toHaveLength(5);
    expect(found.join('\n')).toMatch(
      /^PORT .*\n^LOG_LEVEL .*\n^GRAPHIQL .*\n^AUTH_URL must be an http\(s\) URL.*\n^Upstream configured only in part/m,
    );
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', AUTH_URL: ' ' }).port).toBe(4000);
  });
});
