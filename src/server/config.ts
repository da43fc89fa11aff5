import { z } from 'zod';
import { HOSTS, type HostName, type UpstreamUrls } from '../upstream/contract.js';

export interface Config {
  port: number;
  host: string;
  /** null: no upstream configured, the embedded simulator serves it. */
  upstreamUrls: UpstreamUrls | null;
  upstreamTimeoutMs: number;
  upstreamRetries: number;
  /** The whole request's budget: no upstream call outlives it, retries included. */
  requestDeadlineMs: number;
  /** How long a stop waits for in-flight requests. */
  shutdownGraceMs: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  graphiql: boolean;
  introspection: boolean;
  /** off: any document; allow: registered hashes and full documents; only: registered hashes alone. */
  trustedDocuments: 'off' | 'allow' | 'only';
}

/** Thrown by loadConfig with every problem found, one line each. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const integer = (name: string, min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `${name} must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().min(min, `${name} must be at least ${min}`).max(max, `${name} must be at most ${max}`));

const flag = (name: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => ['on', 'off', 'true', 'false', '1', '0'].includes(v), `${name} must be on or off`)
    .transform((v) => v === 'on' || v === 'true' || v === '1');

const httpUrl = (name: string) =>
  z
    .string()
    .trim()
    .refine((v) => {
      if (!URL.canParse(v)) return false;
      const url = new URL(v);
      return (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash;
    }, `${name} must be an http(s) URL without query or fragment, e.g. http://orders.internal:8080/api`);

const envSchema = z.object({
  PORT: integer('PORT', 0, 65535).default(4000),
  HOST: z.string().trim().min(1, 'HOST must not be empty').default('127.0.0.1'),
  UPSTREAM_TIMEOUT_MS: integer('UPSTREAM_TIMEOUT_MS', 1, 600_000).default(5000),
  UPSTREAM_RETRIES: integer('UPSTREAM_RETRIES', 0, 5).default(1),
  REQUEST_DEADLINE_MS: integer('REQUEST_DEADLINE_MS', 1, 600_000).default(10_000),
  SHUTDOWN_GRACE_MS: integer('SHUTDOWN_GRACE_MS', 0, 600_000).default(10_000),
  NODE_ENV: z.string().trim().default('development'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  // Unset: on, but off when NODE_ENV=production.
  GRAPHIQL: flag('GRAPHIQL').optional(),
  INTROSPECTION: flag('INTROSPECTION').optional(),
  TRUSTED_DOCUMENTS: z
    .enum(['off', 'allow', 'only'], { error: 'TRUSTED_DOCUMENTS must be one of off, allow, only' })
    .default('off'),
  ...Object.fromEntries(HOSTS.map((name) => [name, httpUrl(name).optional()])),
});

/**
 * Reads and validates the environment (the only place that does). Empty variables count
 * as unset. Throws a ConfigError listing every problem at once.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''));
  const parsed = envSchema.safeParse(present);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);

  const setUrls = HOSTS.filter((name) => name in present);
  if (setUrls.length > 0 && setUrls.length < HOSTS.length) {
    const missing = HOSTS.filter((name) => !(name in present));
    problems.push(
      `Upstream configured only in part: ${missing.join(', ')} missing. Set all five upstream URLs, or none to use the embedded simulator`,
    );
  }
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);

  const values = parsed.data as z.infer<typeof envSchema> & Partial<Record<HostName, string>>;
  const production = values.NODE_ENV === 'production';
  return {
    port: values.PORT,
    host: values.HOST,
    upstreamUrls:
      setUrls.length === 0 ? null : (Object.fromEntries(HOSTS.map((n) => [n, values[n]!])) as UpstreamUrls),
    upstreamTimeoutMs: values.UPSTREAM_TIMEOUT_MS,
    upstreamRetries: values.UPSTREAM_RETRIES,
    requestDeadlineMs: values.REQUEST_DEADLINE_MS,
    shutdownGraceMs: values.SHUTDOWN_GRACE_MS,
    logLevel: values.LOG_LEVEL,
    graphiql: values.GRAPHIQL ?? !production,
    introspection: values.INTROSPECTION ?? !production,
    trustedDocuments: values.TRUSTED_DOCUMENTS,
  };
}
