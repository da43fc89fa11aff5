// The customers this process follows for its live streams: a customer is followed from its
// first stream here to its last, and each stream is admitted within the per-customer and
// per-address limits.
import { RateLimitedError } from '../errors.js';
import type { PollCoordinator, PollMessage } from './coordinator.js';
import type { Customer, Watch } from './customer.js';

export interface CustomersOptions {
  limits: { perCustomer: number; perAddress: number };
  coordinator: PollCoordinator;
  /** A message about a followed customer (from this process's poll or another's). */
  receive: (customer: Customer, message: PollMessage) => void;
  /** A customer newly followed: its poll starts. */
  followed: (customer: Customer) => void;
  /** A customer no longer followed: what was kept for it goes. */
  forgotten: (customer: Customer) => void;
}

export function createCustomers({ limits: { perCustomer, perAddress }, coordinator, receive, followed, forgotten }: CustomersOptions) {
  const customers = new Map<string, Customer>();
  const byAddress = new Map<string, number>();
  let closed = false;
  /** Whether the customer is still followed (not forgotten, and the hub not closed). */
  const following = (customer: Customer) => !closed && customers.get(customer.id) === customer;

  /** Counts a new stream from `address` (its customer has `open` already); throws RATE_LIMITED when either is at its limit. */
  function admit(open: number, address: string | null) {
    if (open >= perCustomer) throw new RateLimitedError(`Too many live streams for this customer (${perCustomer}): close one first.`);
    if (!address) return;
    const fromAddress = byAddress.get(address) ?? 0;
    if (fromAddress >= perAddress) throw new RateLimitedError(`Too many live streams from this address (${perAddress}): close one first.`);
    byAddress.set(address, fromAddress + 1);
  }

  function follow(customerId: string): Customer {
    const customer: Customer = {
      id: customerId,
      watches: new Set(),
      snapshot: null,
      orders: new Map(),
      timer: undefined,
      failures: 0,
      polling: false,
      ownPoll: undefined,
      unfollow: () => {},
      released: undefined,
    };
    customer.unfollow = coordinator.follow(customerId, (message) => receive(customer, message));
    customers.set(customerId, customer);
    followed(customer);
    return customer;
  }

  /** Stops following the customer, and hands its poll over (resolves once it is). */
  function forget(customer: Customer): Promise<void> {
    if (customers.get(customer.id) === customer) {
      clearTimeout(customer.timer);
      customer.unfollow();
      customers.delete(customer.id);
      forgotten(customer);
      customer.released = coordinator.release(customer.id);
    }
    return customer.released ?? Promise.resolve();
  }

  return {
    following,
    forget,
    /** Whether new streams are taken (the hub is not closed). */
    open: () => !closed,
    /** Admits the stream (RATE_LIMITED past the limits) and adds it to its customer's, following it if new. */
    join(watch: Watch): Customer {
      const existing = customers.get(watch.customerId);
      admit(existing?.watches.size ?? 0, watch.address);
      const customer = existing ?? follow(watch.customerId);
      customer.watches.add(watch);
      return customer;
    },
    /** The stream ended; the customer's last one ends its following. */
    leave(customer: Customer, watch: Watch): void {
      if (!customer.watches.delete(watch)) return;
      if (watch.address) {
        const left = (byAddress.get(watch.address) ?? 1) - 1;
        if (left > 0) byAddress.set(watch.address, left);
        else byAddress.delete(watch.address);
      }
      if (customer.watches.size === 0) void forget(customer);
    },
    /** Follows no one new from now on; the customers followed until now. */
    close(): Customer[] {
      closed = true;
      return [...customers.values()];
    },
    /** Customers followed, and streams open. */
    counts: () => ({ customers: customers.size, watchers: [...customers.values()].reduce((n, customer) => n + customer.watches.size, 0) }),
  };
}
