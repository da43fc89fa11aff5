// A home automation's webhook endpoint, for the notification tests: a node:http server on a
// loopback port that verifies each POST's Standard Webhooks headers and signature with the
// target's secret (standardwebhooks' own verify), keeps what arrived in order, and answers as
// the test says: 204, a failure status, or nothing at all (held: the sender waits).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { listen } from './harness.js';

export interface Arrival {
  /** The path it was posted to: one receiver serves several targets by path. */
  path: string;
  /** `webhook-id`: the message's idempotency key. */
  id: string;
  /** Whether the signature verified with the path's secret (false without one given). */
  verified: boolean;
  type: string;
  data: {
    orderId?: string;
    title: string;
    body: string;
    url: string;
    changes?: { field: string; from: string | null; to: string | null }[];
  };
  /** performance.now() when it arrived: for the measurements, never asserted. */
  at: number;
}

/** How a POST is answered: a status, or `hold` (never: the sender's timeout or death ends it). */
export type Answer = number | 'hold';

export async function startWebhookReceiver() {
  const arrivals: Arrival[] = [];
  const secrets = new Map<string, string>();
  const answers = new Map<string, Answer>();
  const held = new Set<ServerResponse>();
  const waiters = new Set<() => void>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const text = Buffer.concat(chunks).toString('utf8');
      const secret = secrets.get(path);
      let verified = false;
      if (secret) {
        try {
          new Webhook(secret).verify(text, request.headers as Record<string, string>);
          verified = true;
        } catch {
          verified = false;
        }
      }
      const body = JSON.parse(text) as { type: string; data: Arrival['data'] };
      arrivals.push({ path, id: String(request.headers['webhook-id']), verified, type: body.type, data: body.data, at: performance.now() });
      for (const wake of waiters) wake();
      const answer = answers.get(path) ?? 204;
      if (answer === 'hold') return void held.add(response);
      response.writeHead(answer).end();
    });
  });
  const origin = await listen(server);
  return {
    origin,
    arrivals,
    /** The URL of a target at `path`, whose posts verify with `secret` once given (`sign`). */
    url: (path: string) => `${origin}${path}`,
    sign(path: string, secret: string) {
      secrets.set(path, secret);
    },
    answer(path: string, answer: Answer) {
      answers.set(path, answer);
    },
    at: (path: string) => arrivals.filter((arrival) => arrival.path === path),
    /** Resolves once `done()` holds, checked at each arrival (and now). */
    async until(done: () => boolean, timeoutMs = 60_000): Promise<void> {
      if (done()) return;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(
            new Error(
              `the receiver did not get what was awaited: ${JSON.stringify(arrivals.map(({ path, type, id }) => ({ path, type, id })))}`,
            ),
          );
        }, timeoutMs);
        const wake = () => {
          if (!done()) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
      });
    },
    async close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
