// The order-tracker page (examples/order-tracker/, built by npm run build) served at /tracker/ on
// the gateway's own origin: its files read once, precompressed, under a strict CSP (its
// service worker, /tracker/sw.js, under its own, with its scope), and its settings (the
// endpoint, the demo logins GraphiQL offers too, the live poll interval, how to send its
// documents).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Plugin } from 'graphql-yoga';
import type { DemoLogin } from './graphiql.js';
import { acceptsGzip } from './headers.js';

/** Where the page is served. */
export const TRACKER_PATH = '/tracker/';

/**
 * Where the built page is: beside the compiled gateway (dist/tracker/, the build puts it
 * there), or, running from the sources (npm run dev, the tests), the page's own build folder.
 */
export function builtTrackerFolder(): string | null {
  const candidates = [new URL('../../tracker/', import.meta.url), new URL('../../examples/order-tracker/dist/', import.meta.url)];
  const found = candidates.find((folder) => existsSync(new URL('index.html', folder)));
  return found ? fileURLToPath(found) : null;
}

/**
 * The page's policy: its own scripts, styles and API alone (the Vite build inlines nothing);
 * no frames, no base or form elsewhere.
 */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * The service worker's policy (a worker's is its script's own): it loads nothing and asks the
 * network nothing; it shows notifications and opens the page.
 */
const WORKER_CSP = "default-src 'none'";

/** The service worker's file (examples/order-tracker/src/sw.ts), at a fixed address: browsers keep a registration by its URL. */
const SERVICE_WORKER = 'sw.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

interface PageFile {
  type: string;
  body: Uint8Array<ArrayBuffer>;
  gzipped: Uint8Array<ArrayBuffer>;
  headers: Record<string, string>;
}

function pageFile(body: Uint8Array, type: string, headers: Record<string, string>): PageFile {
  return { type, body: Uint8Array.from(body), gzipped: Uint8Array.from(gzipSync(body)), headers };
}

/**
 * Every file of the built page by its path under /tracker/ (the only paths served: nothing
 * from a request reaches the file system), and its settings, built or not: the page from its
 * sources on Vite's development server (npm run tracker:dev) takes them from here.
 */
function readPage(folder: string | null, settings: unknown): Map<string, PageFile> {
  const files = new Map<string, PageFile>();
  const walk = (root: string, dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(root, full);
      else {
        const path = relative(root, full).split(sep).join('/');
        // Vite names every asset by its content's hash: a browser keeps them for good.
        const caching = path.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
        files.set(path, pageFile(readFileSync(full), TYPES[extname(name)] ?? 'application/octet-stream', { 'cache-control': caching }));
      }
    }
  };
  if (folder) walk(folder, folder);
  const index = files.get('index.html');
  if (index) {
    index.headers = {
      'cache-control': 'no-cache',
      'content-security-policy': CSP,
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    };
    files.set('', index);
  }
  const worker = files.get(SERVICE_WORKER);
  // Checked afresh on each visit (no-cache), so a new version takes over; its scope is the page's.
  if (worker)
    worker.headers = { 'cache-control': 'no-cache', 'service-worker-allowed': TRACKER_PATH, 'content-security-policy': WORKER_CSP };
  files.set(
    'settings.json',
    pageFile(new TextEncoder().encode(JSON.stringify(settings)), TYPES['.json']!, { 'cache-control': 'no-cache' }),
  );
  return files;
}

export interface TrackerPageOptions {
  /** The built page's folder (builtTrackerFolder); null: not built, /tracker/ says so (its settings are served all the same). */
  folder: string | null;
  /** The GraphQL endpoint's path, on this origin. */
  endpoint: string;
  /** The demo customers the sign-in offers (the ones GraphiQL's bar offers); none for a real upstream. */
  demoLogins: readonly DemoLogin[];
  /** LIVE_POLL_INTERVAL_MS: the SDK's watch subscribes again no sooner. */
  pollIntervalMs: number;
  /** Whether the page sends its registered documents by hash (TRUSTED_DOCUMENTS is allow or only). */
  persistedDocuments: boolean;
}

/** Serves the page under /tracker/ (GET and HEAD); every other path is left to the rest of the gateway. */
export function useTrackerPage({ folder, endpoint, demoLogins, pollIntervalMs, persistedDocuments }: TrackerPageOptions): Plugin {
  let files: Map<string, PageFile> | undefined;
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname === TRACKER_PATH.slice(0, -1)) {
        return endResponse(new fetchAPI.Response(null, { status: 308, headers: { location: TRACKER_PATH } }));
      }
      if (!url.pathname.startsWith(TRACKER_PATH)) return;
      const text = (status: number, message: string, headers: Record<string, string> = {}) =>
        endResponse(new fetchAPI.Response(message, { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers } }));
      if (request.method !== 'GET' && request.method !== 'HEAD') return text(405, 'Method not allowed\n', { allow: 'GET, HEAD' });
      files ??= readPage(folder, { endpoint, pollIntervalMs, persistedDocuments, demo: demoLogins });
      const file = files.get(url.pathname.slice(TRACKER_PATH.length));
      if (!file) return text(404, folder ? 'Not found\n' : 'The order-tracker page is not built: npm run build builds it.\n');
      const gzip = acceptsGzip(request);
      const body = request.method === 'HEAD' ? null : gzip ? file.gzipped : file.body;
      endResponse(
        new fetchAPI.Response(body, {
          headers: { ...file.headers, 'content-type': file.type, vary: 'accept-encoding', ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
        }),
      );
    },
  };
}
