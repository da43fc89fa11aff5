// /healthz and /readyz: answered before any other plugin sees the request.
import type { Plugin } from 'graphql-yoga';

export const HEALTH_PATH = '/healthz';
export const READY_PATH = '/readyz';

export interface HealthOptions {
  /** False once a stop has begun: /readyz then tells load balancers to go elsewhere. */
  isReady: () => boolean;
  /** What /readyz reports besides (the state of Redis): informative, it does not change the status. */
  readinessDetails?: () => Record<string, string>;
}

/** A JSON answer, built with the server adapter's own Response class: a native one breaks its stream handling. */
const jsonResponse = (ResponseClass: typeof Response, status: number, body: unknown) =>
  new ResponseClass(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });

/** Liveness (the process answers) and readiness (it takes requests: not while stopping). */
export function useHealthEndpoints({ isReady, readinessDetails }: HealthOptions): Plugin {
  return {
    onRequest({ url, endResponse, fetchAPI }) {
      if (url.pathname === HEALTH_PATH) return endResponse(jsonResponse(fetchAPI.Response, 200, { status: 'ok' }));
      if (url.pathname === READY_PATH) {
        const ready = isReady();
        return endResponse(
          jsonResponse(fetchAPI.Response, ready ? 200 : 503, { status: ready ? 'ready' : 'shutting down', ...readinessDetails?.() }),
        );
      }
    },
  };
}
