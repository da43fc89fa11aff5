// What the hub keeps for one customer watched in this process (its streams, its last snapshot,
// its poll's state), and for each stream.
import type { LiveWatcher } from '../graph/context.js';
import type { FieldChange } from '../graph/mappers.js';
import type { CallBudget } from '../upstream/budget.js';
import type { Order } from '../upstream/models.js';
import type { PollSnapshot } from './coordinator.js';
import type { LiveStream } from './stream.js';

/** One stream: who watches, and the stream its events go to. */
export interface Watch extends LiveWatcher {
  stream: LiveStream;
  /** True until the stream has had the current state of its orders. */
  fresh: boolean;
  /**
   * What polls fetched after its token was last confirmed (`confirmedAt`): each order's changes,
   * merged, and when the latest of them was fetched. It reaches the stream only once the
   * upstream has accepted the token again in a check begun after that (credentials.ts).
   */
  held: { changes: Map<string, FieldChange[]>; fetchedAt: number; budget: CallBudget } | undefined;
}

export interface Customer {
  id: string;
  watches: Set<Watch>;
  /** The last snapshot, and its orders by id (what a stream's events are made from when read). */
  snapshot: PollSnapshot | null;
  orders: ReadonlyMap<string, Order>;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Polls failed in a row: the wait before the next one grows with them. */
  failures: number;
  polling: boolean;
  /** This process's last poll of the customer: its events here share the budget its call was taken from. */
  ownPoll: { observedAt: string; budget: CallBudget } | undefined;
  unfollow: () => void;
  /** Set once the customer is no longer followed: its poll handed over. */
  released: Promise<void> | undefined;
}

/** Whether the stream watches the order. */
export const watches = (watch: Watch, orderId: string) => watch.orderId === null || watch.orderId === orderId;
