// Which pages and documents are served, and to which hosts and origins.
import { z } from 'zod';
import { flag, integer, MIB } from './kinds.js';

/** An origin (`https://app.example.com`, `http://localhost:5173`) or `*`; never `null`. */
const origins = z
  .string()
  .transform((value): readonly string[] =>
    value
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
  )
  .refine(
    (list) => list.every((origin) => origin === '*' || (URL.canParse(origin) && new URL(origin).origin === origin)),
    'CORS_ORIGINS must be a comma-separated list of origins such as https://app.example.com (scheme, host and port only), or *',
  );

/** Host names (`api.example.com`), comma-separated, or `*` for any. */
const hostNames = z
  .string()
  .transform((value): readonly string[] =>
    value
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  )
  .refine(
    (list) =>
      list.length > 0 &&
      list.every((name) => name === '*' || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(name)),
    'ALLOWED_HOSTS must be a comma-separated list of host names such as api.example.com (no scheme, no port), or *',
  );

export const pageVariables = z.object({
  DOCUMENT_CACHE_BYTES: integer('DOCUMENT_CACHE_BYTES', 1_000_000, 4096 * MIB)
    .default(32 * MIB)
    .describe(
      'The heap the documents kept between requests (parsed and validated, and compiled by graphql-jit once they run a second time or when registered) may take, estimated; the least recently used go first.',
    ),
  SUBGRAPH: flag('SUBGRAPH').default(false).describe('Serve as an Apollo Federation v2 subgraph (`_service`, `_entities`).'),
  CORS_ORIGINS: origins.optional().meta({
    description:
      'Comma-separated origins allowed cross-origin access (`https://app.example.com`), or `*`; never with credentials (the API takes a bearer token, no cookie). A WebSocket upgrade from a browser page of another origin is refused (403).',
    unset: 'local origins (`localhost`, `127.0.0.1`, `[::1]`, any port); none in production',
  }),
  ALLOWED_HOSTS: hostNames.optional().meta({
    description:
      "Comma-separated host names clients reach the gateway by (`api.example.com`), or `*`. A request or WebSocket upgrade whose `Host` is another name is refused with 421 `HOST_NOT_ALLOWED`, as a DNS-rebinding page's are. An IP address is always answered: probes and Prometheus reach pods by address.",
    unset: 'any; production refuses to start without it',
  }),
  GRAPHIQL: flag('GRAPHIQL')
    .optional()
    .meta({ description: 'The GraphiQL page at `/graphql`, self-hosted: it works offline.', unset: '`on` (`off` in production)' }),
  INTROSPECTION: flag('INTROSPECTION')
    .optional()
    .meta({ description: 'Schema introspection, and the field suggestions that go with it.', unset: '`on` (`off` in production)' }),
  TRACKER: flag('TRACKER').optional().meta({
    description: 'The order-tracker page at `/tracker/`, served where `npm run build` built it (the container image does).',
    unset: '`on` (`off` in production)',
  }),
  TRUSTED_DOCUMENTS: z
    .enum(['off', 'allow', 'only'], { error: 'TRUSTED_DOCUMENTS must be one of off, allow, only' })
    .default('off')
    .describe(
      'Which documents run: `off`, any; `allow`, the registered documents by hash and full documents too; `only`, the registered documents by hash alone.',
    ),
});

type PageValues = z.output<typeof pageVariables>;

/** Production names the hosts it answers to: a DNS-rebinding page reaches an unnamed one. */
export function allowedHostsProblems(values: PageValues, production: boolean): string[] {
  return production && values.ALLOWED_HOSTS === undefined
    ? [
        'NODE_ENV=production needs ALLOWED_HOSTS: the host names clients reach the gateway by (api.example.com), or * for any (IP addresses are always answered)',
      ]
    : [];
}
