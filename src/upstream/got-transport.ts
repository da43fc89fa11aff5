// The upstream transport on got: one instance and one keep-alive agent per upstream host, one attempt per call.
import http from 'node:http';
import https from 'node:https';
import got, { HTTPError, RequestError, TimeoutError, type Got } from 'got';
import { CONTRACT, HOSTS, operationUrl, type HostName, type UpstreamUrls } from './contract.js';
import type { CallFailure } from './failures.js';
import { bytesFailure, EXHAUSTED_CODES, headerRecord, SOCKETS_PER_HOST, wholeResult, type Transport, type TransportOptions, type UpstreamResult } from './http.js';
import type { CallScope } from './scope.js';

const AGENT_OPTIONS = { keepAlive: true, maxSockets: SOCKETS_PER_HOST };

/** A got instance for one host, over its own keep-alive agent. */
function hostClient(url: string, agent: http.Agent): Got {
  const transport = url.startsWith('https:') ? https : http;
  return got.extend({
    agent: url.startsWith('https:') ? { https: agent as https.Agent } : { http: agent },
    // got hands its request function some forty options, nearly all of them TLS settings
    // left undefined, which Node's client and agent then copy on every call; only these
    // matter to a plain keep-alive HTTP(S) call.
    request: (target: URL, options: http.RequestOptions, callback?: (response: http.IncomingMessage) => void) =>
      transport.request(target, { method: options.method, headers: options.headers, agent: options.agent, setHost: options.setHost }, callback),
    // Retries are the upstream client's (http.ts), the same whichever transport makes the attempts.
    retry: { limit: 0 },
    decompress: false,
    followRedirect: false,
    responseType: 'text',
  });
}

/**
 * One got instance and one keep-alive agent per upstream host, made once per gateway:
 * they hold connections, never data, so sharing them between requests is safe.
 */
export function gotTransport(urls: UpstreamUrls, options: TransportOptions): Transport {
  const agents = new Map<HostName, http.Agent>(HOSTS.map((name) => [name, urls[name].startsWith('https:') ? new https.Agent(AGENT_OPTIONS) : new http.Agent(AGENT_OPTIONS)]));
  const clients = Object.fromEntries(HOSTS.map((name) => [name, hostClient(urls[name], agents.get(name)!)])) as Record<HostName, Got>;
  return {
    async attempt(operation, { params, json }, scope, headers, timeoutMs) {
      // Why the answer was cut off as it arrived: past the size cap, or past what the request may still hold.
      let cut: 'oversized' | 'bytes' | undefined;
      let taken = 0;
      // A URL built here: got's searchParams handling, and its character-by-character check of
      // a URL string, cost more than the call needs.
      const pending = clients[CONTRACT[operation].host](new URL(operationUrl(urls, operation, params)), {
        method: CONTRACT[operation].method,
        json,
        headers: headerRecord(headers),
        timeout: { request: timeoutMs },
      });
      let clientRequest: http.ClientRequest | undefined;
      pending.on('request', (request) => void (clientRequest = request));
      const untrack = scope.cancelOnAbort(() => clientRequest?.destroy(Object.assign(new Error('the client went away'), { code: 'ERR_CANCELLED' })));
      pending.on('downloadProgress', ({ transferred }) => {
        if (cut) return;
        if (transferred > options.maxBodyBytes) cut = 'oversized';
        else if (!scope.bytes.take(transferred - taken)) cut = 'bytes';
        taken = transferred;
        // No error given: one given to a request whose answer has just ended would be nobody's.
        if (cut) clientRequest?.destroy();
      });
      try {
        const response = await pending;
        // The last chunk can end the answer before the cut does: it is refused all the same.
        if (cut) return cutOff(cut, scope);
        return wholeResult(response.statusCode, response.headers['retry-after'], response.body);
      } catch (error) {
        // A 4xx or 5xx is got's HTTPError: a whole response all the same.
        if (error instanceof HTTPError && !cut && !scope.signal?.aborted) {
          const { statusCode, headers, body } = error.response;
          return wholeResult(statusCode, headers['retry-after'], typeof body === 'string' ? body : '');
        }
        if (cut) return cutOff(cut, scope);
        return { ok: false, failure: scope.signal?.aborted ? { kind: 'cancelled' } : describeFailure(error) };
      } finally {
        untrack();
      }
    },
    close() {
      for (const agent of agents.values()) agent.destroy();
    },
  };
}

/** An answer cut off as it arrived: past the size cap, or past what its request may still hold. */
const cutOff = (cut: 'oversized' | 'bytes', scope: CallScope): UpstreamResult => ({
  ok: false,
  failure: cut === 'bytes' ? bytesFailure(scope.bytes) : { kind: 'oversized' },
});

function describeFailure(error: unknown): CallFailure {
  if (error instanceof TimeoutError) return { kind: 'timeout' };
  if (error instanceof RequestError && EXHAUSTED_CODES.has(error.code)) return { kind: 'exhausted', code: error.code };
  return { kind: 'network', code: error instanceof RequestError ? error.code : undefined };
}
