// Who polls a customer, and how a poll's outcome reaches every stream of that customer: in
// one process (localCoordinator), or across replicas (src/redis/live-coordinator.ts).
import type { ErrorCode } from '../error-codes.js';
import type { UpstreamErrorDetails } from '../errors.js';
import type { FieldChange } from '../graph/mappers.js';
import type { Order } from '../upstream/models.js';

/** A poll's answer for one customer, as every process following the customer gets it. */
export interface PollSnapshot {
  /** When the poll answered, in ISO 8601 UTC. */
  observedAt: string;
  orders: Order[];
  /** Each order's client-visible fields as text, by order id: what the next poll, wherever it runs, compares with. */
  fields: Record<string, Record<string, string | null>>;
  /** What changed since the previous snapshot, by order id; nothing in a customer's first. */
  changes: Record<string, FieldChange[]>;
  /**
   * By order id, when the order's current state was first seen: its latest event in the
   * order history, which may be a query's before this poll. An update carries this time, so
   * that it and the history's event agree; the snapshot's own time where there is none.
   */
  since?: Record<string, string>;
}

/** What the poller tells a customer's followers: a snapshot, a failure, or that it stopped polling. */
export type PollMessage =
  | { kind: 'snapshot'; snapshot: PollSnapshot }
  /** A failed poll, by its code alone: each process words it itself (no text travels). */
  | { kind: 'failure'; code: ErrorCode; details: UpstreamErrorDetails }
  | { kind: 'released' };

/**
 * Who polls a customer: one holder at a time, for a while, across every process sharing it
 * (src/redis/lease.ts); in one process, always that process (localLease). Live polls and
 * notification polls each have their own. Never rejects: a store out of reach means every
 * process polls, not none.
 */
export interface Lease {
  /** Takes or renews the customer's poll for `holdMs`: true when this process is to poll now. */
  claim(customerId: string, holdMs: number): Promise<boolean>;
  /** Gives the customer's poll up: true when this process held it (and no longer does). */
  release(customerId: string): Promise<boolean>;
}

/** One process: it always holds every lease. */
export const localLease: Lease = { claim: async () => true, release: async () => true };

/** Who polls a customer, and the way to its followers. None of its promises rejects: a store out of reach means falling back, not failing. */
export interface PollCoordinator {
  /** Takes or renews the customer's poll for `holdMs` (its Lease): true when this process is to poll now. */
  claim(customerId: string, holdMs: number): Promise<boolean>;
  /** Gives the customer's poll up, if this process holds it; followers elsewhere take it over. */
  release(customerId: string): Promise<void>;
  /** The customer's last snapshot, whichever process made it, while it is kept. */
  last(customerId: string): Promise<PollSnapshot | null>;
  /** Tells every process following the customer, this one included. */
  publish(customerId: string, message: PollMessage): Promise<void>;
  /** Follows the customer's messages until the returned function is called. */
  follow(customerId: string, listener: (message: PollMessage) => void): () => void;
}

/**
 * One process: it always polls the customers it follows, and its messages go to its own
 * followers. It keeps no snapshot: the hub holds each followed customer's last one itself.
 */
export function localCoordinator(): PollCoordinator {
  const listeners = new Map<string, Set<(message: PollMessage) => void>>();
  return {
    claim: localLease.claim,
    release: async () => {},
    last: async () => null,
    async publish(customerId, message) {
      for (const listener of listeners.get(customerId) ?? []) listener(message);
    },
    follow(customerId, listener) {
      const followers = listeners.get(customerId) ?? new Set();
      listeners.set(customerId, followers.add(listener));
      return () => {
        followers.delete(listener);
        if (followers.size === 0) listeners.delete(customerId);
      };
    },
  };
}
