// The simulator's demo customers, by username: one look-up for every test.
import type { Simulator } from '../../src/simulator/server.js';

/** The demo customer with this username (its password, user id, description); throws when there is none. */
export function demoCustomer(simulator: Simulator, username: string) {
  const customer = simulator.customers.find((candidate) => candidate.username === username);
  if (!customer) throw new Error(`no demo customer ${username}`);
  return customer;
}
