import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';

const WHOLE_ORDER_DOCUMENT = new URL('../client/documents/whole-order.graphql', import.meta.url);
const LOGIN_DOCUMENT = new URL('../client/documents/login.graphql', import.meta.url);

/** A login GraphiQL offers pre-filled (the simulator's demo customer); none for a real upstream. */
export interface DemoLogin {
  username: string;
  password: string;
}

// GraphiQL opens on the whole order, with the login one tab away.
export function graphiqlTabs(demoLogin: DemoLogin | undefined) {
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
export function useGraphiQLPage(options: GraphiQLOptions): Plugin {
  let page: Promise<{ html: string; gzipped: Uint8Array<ArrayBuffer>; etag: string }> | undefined;
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'GET' || url.pathname !== '/graphql' || !request.headers.get('accept')?.includes('text/html')) return;
      page ??= import('@graphql-yoga/render-graphiql').then(({ renderGraphiQL }) => {
        const html = renderGraphiQL({ endpoint: '/graphql', ...options });
        return { html, gzipped: Uint8Array.from(gzipSync(html)), etag: createHash('sha256').update(html).digest('base64url').slice(0, 27) };
      });
      const { html, gzipped, etag } = await page;
      const gzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
      // Each encoding is its own representation, with its own validator.
      const tag = `"${etag}${gzip ? '-gz' : ''}"`;
      // The browser keeps the page and asks each time whether it changed (it changes only
      // with a new build or new defaults): a visit costs a 304, not the 2.4 MB again.
      const headers = { etag: tag, 'cache-control': 'private, no-cache', vary: 'accept-encoding' };
      if (request.headers.get('if-none-match')?.split(',').some((candidate) => candidate.trim() === tag)) {
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

