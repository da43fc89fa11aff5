// The page's build: one HTML page and its assets under /tracker/, where the gateway serves
// them (src/server/tracker.ts). In this repository the SDK is taken from its sources
// (src/client/): its package's dist/ is made only when it is packed, and the sources are
// what that dist/ is compiled from. A frontend elsewhere installs @order-graph/client instead.
//
// The development server (npm run tracker:dev) serves the page from its sources, with hot
// reload (React Fast Refresh), and passes what the page asks of the gateway to the gateway at GATEWAY_URL (npm
// start's and npm run dev's address by default): its settings and the GraphQL endpoint, so
// the page is on one origin with its API as when the gateway serves it.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type ProxyOptions } from 'vite';

/** The gateway's origin from GATEWAY_URL (its GraphQL URL as the start-up banner prints it will do: only the origin is kept). */
function gatewayOrigin(value = 'http://127.0.0.1:4000'): string {
  const url = URL.canParse(value.trim()) ? new URL(value.trim()) : null;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new Error(`GATEWAY_URL must be the gateway's address, such as http://127.0.0.1:4000; got "${value}"`);
  return url.origin;
}

/**
 * What the page asks of the gateway: its settings, its service worker as last built, and GraphQL (queries, @defer's multipart
 * answers, the live updates' event stream). The Host header is the gateway's own, as if the
 * page had asked it directly (ALLOWED_HOSTS).
 */
function gatewayProxy(target: string): Record<string, ProxyOptions> {
  const options = { target, changeOrigin: true };
  // The service worker too: the development server has no build of it, the gateway has (npm run build).
  return { '/tracker/settings.json': options, '/tracker/sw.js': options, '/graphql': options };
}

export default defineConfig(({ command }) => ({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/tracker/',
  resolve: {
    alias: { '@order-graph/client': fileURLToPath(new URL('../../src/client/index.ts', import.meta.url)) },
  },
  // React's automatic JSX runtime, and in development Fast Refresh: a changed component is
  // replaced in the open page, its state (the sign-in) kept.
  plugins: [react()],
  server: command === 'serve' ? { proxy: gatewayProxy(gatewayOrigin(process.env.GATEWAY_URL)) } : {},
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No inline scripts or styles: the page's CSP allows only its own files.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    rolldownOptions: {
      // The page, and its service worker (src/sw.ts) at a fixed address, /tracker/sw.js: a
      // browser keeps the registration by that URL, so it cannot carry a hash; the gateway
      // serves it uncached and with its scope (src/server/tracker.ts).
      input: { index: fileURLToPath(new URL('index.html', import.meta.url)), sw: fileURLToPath(new URL('src/sw.ts', import.meta.url)) },
      output: { entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js') },
    },
  },
}));
