// The simulator's demo customers, by username: one look-up for every test.
import { createSeedData } from '../../src/simulator/data.js';
import type { Simulator } from '../../src/simulator/server.js';

/** Every demo customer's username, in the seed's order: a test that goes through them all lists them from here. */
export const DEMO_USERNAMES: readonly string[] = createSeedData().users.map(({ username }) => username);

/** The demo customer with this username (its password, user id, description); throws when there is none. */
export function demoCustomer(simulator: Simulator, username: string) {
  const customer = simulator.customers.find((candidate) => candidate.username === username);
  if (!customer) throw new Error(`no demo customer ${username}`);
  return customer;
}

/** What `/auth/me` answers for the demo customer, as the simulator holds it. */
export function demoUser(simulator: Simulator, username: string) {
  const { userId } = demoCustomer(simulator, username);
  return simulator.data.users.find(({ user }) => user.id === userId)!.user;
}

/** The demo customer's orders as the simulator serves them now (its data is live: a test's changes show). */
export function demoOrders(simulator: Simulator, username: string) {
  const { userId } = demoCustomer(simulator, username);
  return simulator.data.orders.filter((order) => order.userId === userId);
}

/** An access token for the demo customer, issued by the simulator itself (no login through a gateway). */
export function demoToken(simulator: Simulator, username: string, options?: { expiresInSeconds?: number }) {
  return simulator.issueAccessToken(demoCustomer(simulator, username).userId, options);
}
