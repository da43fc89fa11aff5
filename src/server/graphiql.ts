// GraphiQL, self-hosted and precompressed, with the SDK's operations as tabs and a sign-in bar.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { print, type DocumentNode } from 'graphql';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { LoginDocument, OrderUpdatesDocument, WholeOrderDeferredDocument, WholeOrderDocument } from '../client/__generated__/graphql.js';
import { acceptsGzip } from './headers.js';

const SIGN_IN_SCRIPT = new URL('./graphiql-sign-in.js', import.meta.url);

/** A login GraphiQL offers (the simulator's demo customers); none for a real upstream. */
export interface DemoLogin {
  username: string;
  password: string;
  description: string;
}

/**
 * The demo customer whose order the embedded simulator moves every minute (src/simulator/moves.ts;
 * named here, not imported, so a gateway in front of the real service never loads the simulator).
 */
const MOVING_DEMO_CUSTOMER = 'production@demo.test';

const SIGN_IN = `#
# Sign in with the bar above first: every request
# from this page then carries your token (unless
# the Headers pane sets an Authorization header).`;

/**
 * GraphiQL's tabs: the SDK's own documents (each printed with the fragments it uses, as the
 * SDK sends it), opening on the whole order.
 */
function graphiqlTabs(demoLogin: DemoLogin | undefined, movingDemo: boolean) {
  const tab = (comment: string, document: DocumentNode) => `${comment}\n${SIGN_IN}\n\n${print(document)}\n`;
  return [
    { query: tab('# The whole order in one request.', WholeOrderDocument) },
    {
      query: tab(
        '# The whole order, streamed with @defer: the\n# customer and the order list first, then each\n# per-order part as its upstream call returns.',
        WholeOrderDeferredDocument,
      ),
    },
    {
      query: tab(
        '# Live order updates: the current state first,\n# then an event whenever an order changes (the\n# gateway polls the upstream once per customer\n# every LIVE_POLL_INTERVAL_MS). Run again to stop.' +
          (movingDemo
            ? `\n#\n# In this demo ${MOVING_DEMO_CUSTOMER}'s order takes\n# its next stage every minute: sign in as that\n# customer, run this tab and wait for the event.`
            : ''),
        OrderUpdatesDocument,
      ),
    },
    {
      query: `# Log in: returns the token set (the sign-in bar\n# above does this for you and keeps the token).\n# ${demoLogin ? 'The variables hold a demo customer.' : 'Your username and password go in Variables.'}\n\n${print(LoginDocument)}\n`,
      variables: JSON.stringify(
        demoLogin ? { username: demoLogin.username, password: demoLogin.password } : { username: '', password: '' },
        null,
        2,
      ),
    },
  ];
}

/** The sign-in bar's script with what it needs, safe inside an HTML script element. */
function signInBar(demoLogins: readonly DemoLogin[]): string {
  const settings = { endpoint: '/graphql', login: print(LoginDocument), demo: demoLogins };
  const inline = (code: string) => `<script>${code.replace(/<\/(script)/gi, '<\\/$1')}</script>`;
  return (
    inline(`window.orderGraphSignIn = ${JSON.stringify(settings).replace(/</g, '\\u003c')};`) + inline(readFileSync(SIGN_IN_SCRIPT, 'utf8'))
  );
}

/**
 * The rendered page with the viewport and the sign-in bar. Without a viewport a phone lays the
 * page out at its desktop default (980 px wide, or wider for content that asks) and shrinks the
 * whole picture to fit: the bar and the editors turn unreadably small. GraphiQL's own page has
 * none, so it goes here.
 */
function withOurParts(rendered: string, demoLogins: readonly DemoLogin[]): string {
  const head = rendered.indexOf('</head>');
  const body = rendered.lastIndexOf('</body>');
  if (head < 0 || body < head) throw new Error('GraphiQL page without a head and a body: @graphql-yoga/render-graphiql changed its page');
  return [
    rendered.slice(0, head),
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    rendered.slice(head, body),
    signInBar(demoLogins),
    rendered.slice(body),
  ].join('');
}

/**
 * The page's policy: its own inline scripts alone (each by its hash: the page is rendered once,
 * so the hashes are known), its styles, workers made from its own code, and the API on its own
 * origin; framed by no one (clickjacking: a page of another site overlaying the sign-in bar).
 */
function contentSecurityPolicy(html: string): string {
  const hashes = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    (match) => `'sha256-${createHash('sha256').update(match[1]!).digest('base64')}'`,
  );
  return [
    "default-src 'none'",
    `script-src ${hashes.join(' ')}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "worker-src 'self' blob:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Serves GraphiQL from the package itself (no CDN) with the sign-in bar (graphiql-sign-in.js),
 * rendered and gzipped once on first use:
 * the page is about 9 MB, 2.4 MB compressed, and compressing it per request would cost
 * half a second of CPU each time. The package (about 70 MB of memory) loads only then.
 */
export function useGraphiQLPage(demoLogins: readonly DemoLogin[]): Plugin {
  const options: GraphiQLOptions = {
    title: 'Order Graph',
    defaultTabs: graphiqlTabs(
      demoLogins[0],
      demoLogins.some((login) => login.username === MOVING_DEMO_CUSTOMER),
    ),
    // Every operation as a JSON POST, subscriptions too, as the SDK sends them.
    method: 'POST',
  };
  let page: Promise<{ html: string; gzipped: Uint8Array<ArrayBuffer>; etag: string; policy: string }> | undefined;
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'GET' || url.pathname !== '/graphql' || !request.headers.get('accept')?.includes('text/html')) return;
      page ??= import('@graphql-yoga/render-graphiql').then(({ renderGraphiQL }) => {
        const html = withOurParts(renderGraphiQL({ endpoint: '/graphql', ...options }), demoLogins);
        return {
          html,
          gzipped: Uint8Array.from(gzipSync(html)),
          etag: createHash('sha256').update(html).digest('base64url').slice(0, 27),
          policy: contentSecurityPolicy(html),
        };
      });
      const { html, gzipped, etag, policy } = await page;
      const gzip = acceptsGzip(request);
      // Each encoding is its own representation, with its own validator.
      const tag = `"${etag}${gzip ? '-gz' : ''}"`;
      // The browser keeps the page and asks each time whether it changed (it changes only
      // with a new build or new defaults): a visit costs a 304, not the 2.4 MB again.
      const headers = {
        etag: tag,
        'cache-control': 'private, no-cache',
        vary: 'accept-encoding',
        'content-security-policy': policy,
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
      };
      if (
        request.headers
          .get('if-none-match')
          ?.split(',')
          .some((candidate) => candidate.trim() === tag)
      ) {
        return endResponse(new fetchAPI.Response(null, { status: 304, headers }));
      }
      endResponse(
        new fetchAPI.Response(gzip ? gzipped : html, {
          headers: { ...headers, 'content-type': 'text/html; charset=utf-8', ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
        }),
      );
    },
  };
}
