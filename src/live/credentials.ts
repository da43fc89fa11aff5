// Each stream's own credentials, confirmed again: a customer's poll is made with one of its
// streams' tokens, and its snapshot goes to all of them. Without this, a stream whose token the
// upstream has since refused (a sign-out, a revoked session) would go on receiving the
// customer's orders until its token's own expiry.
import type { Logger } from 'pino';
import { GatewayError, UnauthenticatedError } from '../errors.js';
import type { ScopeLimits } from '../upstream/scope.js';
import type { Customer, Watch } from './customer.js';

export interface CredentialChecksOptions {
  intervalMs: number;
  /** The customer id the upstream says the token is (customerDetails); throws its GatewayError when it refuses the token. */
  checkToken: (token: string, limits: ScopeLimits) => Promise<string>;
  /** One check's budget (the customer's) and deadline. */
  newLimits: (customer: Customer) => ScopeLimits;
  /** Ends the stream: its token was refused, or belongs to someone else now. */
  refused: (watch: Watch, error: GatewayError) => void;
  /** These streams' token was confirmed (their `confirmedAt` is now later): what they hold may go to them. */
  confirmed: (customer: Customer, watches: Watch[]) => void;
  logger?: Logger;
}

// The upstream's word on the token itself; anything else (a timeout, a 5xx) says nothing of it.
const REFUSED = new Set(['UNAUTHENTICATED', 'FORBIDDEN']);

const refusedError = () => new UnauthenticatedError('The upstream no longer accepts this access token: sign in again and subscribe again.');

/**
 * Each stream's token is confirmed by the upstream again: by a poll made with it (at the moment
 * it fetched the orders), or by a check (`/auth/me`, one call per distinct token, dated when it
 * began). A stream is sent nothing a poll fetched before its token's last confirmation began
 * (delivery.ts holds it, and asks for a check at once: `checkNow`). Besides, every interval,
 * each distinct token of a followed customer's streams here that was not confirmed within the
 * last interval is checked, but the one this process's polls are made with while they succeed,
 * so a stream whose token was revoked ends within about two intervals even when nothing
 * changes. A token the upstream refuses, or that now names another customer, ends its streams
 * with UNAUTHENTICATED; when the upstream cannot answer, the token is checked again the next
 * round, and what its streams hold waits.
 */
export function createCredentialChecks({ intervalMs, checkToken, newLimits, refused, confirmed, logger }: CredentialChecksOptions) {
  const timers = new Map<Customer, NodeJS.Timeout>();
  // By customer: the token its last successful poll here was made with, and when.
  const polled = new Map<Customer, { token: string; at: number }>();
  // By customer: the tokens being checked now (one check at a time per token).
  const checking = new Map<Customer, Set<string>>();

  /** Marks the streams on `token` confirmed at `at`, and lets what they hold go. */
  function confirm(customer: Customer, token: string, at: number): void {
    const watches = [...customer.watches].filter((watch) => watch.token === token);
    for (const watch of watches) watch.confirmedAt = Math.max(watch.confirmedAt, at);
    if (watches.length > 0) confirmed(customer, watches);
  }

  async function checkOne(customer: Customer, token: string): Promise<void> {
    const busy = checking.get(customer) ?? checking.set(customer, new Set()).get(customer)!;
    if (busy.has(token)) return;
    busy.add(token);
    const startedAt = Date.now();
    try {
      const customerId = await checkToken(token, newLimits(customer));
      if (customerId === customer.id) confirm(customer, token, startedAt);
      else endAll(customer, token);
    } catch (error) {
      if (error instanceof GatewayError && REFUSED.has(error.code)) return endAll(customer, token);
      logger?.debug(
        { code: error instanceof GatewayError ? error.code : 'INTERNAL_SERVER_ERROR' },
        'a live stream’s token could not be checked: again next round',
      );
    } finally {
      busy.delete(token);
    }
  }

  const endAll = (customer: Customer, token: string) => {
    for (const watch of [...customer.watches]) if (watch.token === token) refused(watch, refusedError());
  };

  /**
   * Checks each token of the customer's streams not confirmed within the last interval, but the
   * one this process's polls are made with while they succeed (a poll's timer runs from the end
   * of the last one: under load the polls come a little less often than the rounds).
   */
  async function round(customer: Customer): Promise<void> {
    const now = Date.now();
    const poll = polled.get(customer);
    const pollToken = poll && now - poll.at < 2 * intervalMs ? poll.token : null;
    const stale = [...customer.watches].filter((watch) => watch.token !== pollToken && watch.confirmedAt < now - intervalMs);
    const due = new Set(stale.map((watch) => watch.token));
    await Promise.all([...due].map((token) => checkOne(customer, token)));
  }

  return {
    /** Starts the rounds for a customer followed here. */
    follow(customer: Customer): void {
      timers.set(customer, setInterval(() => void round(customer), intervalMs).unref());
    },
    /** Stops them once it is no longer followed. */
    forget(customer: Customer): void {
      clearInterval(timers.get(customer));
      timers.delete(customer);
      polled.delete(customer);
      checking.delete(customer);
    },
    /** This process's poll of the customer was made with the token, and the upstream accepted it when it fetched the orders (`at`). */
    accepted(customer: Customer, token: string, at: number): void {
      if (!timers.has(customer)) return;
      polled.set(customer, { token, at });
      confirm(customer, token, at);
    },
    /** A stream holds what a poll fetched after its token's last confirmation: its token is checked now (unless it is already). */
    checkNow: (customer: Customer, watch: Watch): void => void checkOne(customer, watch.token),
  };
}
