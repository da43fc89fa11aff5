// The page's build: one HTML page and its assets under /tracker/, where the gateway serves
// them (src/server/tracker.ts). In this repository the SDK is taken from its sources
// (src/client/): its package's dist/ is made only when it is packed, and the sources are
// what that dist/ is compiled from. A frontend elsewhere installs @order-graph/client instead.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/tracker/',
  resolve: {
    alias: { '@order-graph/client': fileURLToPath(new URL('../../src/client/index.ts', import.meta.url)) },
  },
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No inline scripts or styles: the page's CSP allows only its own files.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
