// Each stream's own credentials, checked again once per poll interval. A customer's poll is
// made with one of its streams' tokens, and its snapshot goes to all of them: without this, a
// stream whose token the upstream has since refused (a sign-out, a revoked session) would go
// on receiving the customer's orders until its token's own expiry.
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
  logger?: Logger;
}

// The upstream's word on the token itself; anything else (a timeout, a 5xx) says nothing of it.
const REFUSED = new Set(['UNAUTHENTICATED', 'FORBIDDEN']);

const refusedError = () => new UnauthenticatedError('The upstream no longer accepts this access token: sign in again and subscribe again.');

/**
 * Every interval, for each followed customer, each distinct token of its streams here is
 * checked with one cheap call (`/auth/me`), but the one this process's poll is made with while
 * the polls succeed (each poll is the upstream's word on it). A token the upstream refuses, or
 * that now names another customer, ends its streams with UNAUTHENTICATED; when the upstream
 * cannot answer, the token is checked again the next round.
 */
export function createCredentialChecks({ intervalMs, checkToken, newLimits, refused, logger }: CredentialChecksOptions) {
  const timers = new Map<Customer, NodeJS.Timeout>();
  // By customer: the token its last successful poll here was made with, and when.
  const polled = new Map<Customer, { token: string; at: number }>();

  async function checkOne(customer: Customer, token: string, watches: Watch[]): Promise<void> {
    try {
      const customerId = await checkToken(token, newLimits(customer));
      if (customerId !== customer.id) watches.forEach((watch) => refused(watch, refusedError()));
    } catch (error) {
      if (error instanceof GatewayError && REFUSED.has(error.code)) return void watches.forEach((watch) => refused(watch, refusedError()));
      logger?.debug(
        { code: error instanceof GatewayError ? error.code : 'INTERNAL_SERVER_ERROR' },
        'a live stream’s token could not be checked: again next round',
      );
    }
  }

  async function round(customer: Customer): Promise<void> {
    const poll = polled.get(customer);
    const pollToken = poll && Date.now() - poll.at < 2 * intervalMs ? poll.token : null;
    const due = new Map<string, Watch[]>();
    for (const watch of customer.watches) if (watch.token !== pollToken) due.set(watch.token, [...(due.get(watch.token) ?? []), watch]);
    await Promise.all([...due].map(([token, watches]) => checkOne(customer, token, watches)));
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
    },
    /** This process's poll of the customer was just made with the token, and the upstream accepted it. */
    accepted(customer: Customer, token: string): void {
      if (timers.has(customer)) polled.set(customer, { token, at: Date.now() });
    },
  };
}
