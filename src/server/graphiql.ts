import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
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

