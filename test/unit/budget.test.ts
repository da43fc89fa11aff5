// The call budget's queue: at most `concurrency` calls at once, the rest in order, errors passed on;
// and a queue joining another (a token's calls joining its customer's when it is verified).
import { describe, expect, it } from 'vitest';
import { createCallBudget, createQueue } from '../../src/upstream/budget.js';

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('createCallBudget run', () => {
  it('runs at most `concurrency` calls at once and starts the rest in the order they came', async () => {
    const budget = createCallBudget({ calls: 10, concurrency: 2, retries: 0 });
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, i) =>
      budget.run(async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    gates[1]!.resolve();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.resolve();
    await tick();
    expect(started).toEqual([0, 1, 2, 3]);
    gates[2]!.resolve();
    gates[3]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
  });

  it('passes a call’s error on and frees its place, whether it rejects or throws', async () => {
    const budget = createCallBudget({ calls: 10, concurrency: 1, retries: 0 });
    const rejected = budget.run(() => Promise.reject(new Error('rejected')));
    const thrown = budget.run((): Promise<number> => {
      throw new Error('thrown');
    });
    const after = budget.run(async () => 'after');
    await expect(rejected).rejects.toThrow('rejected');
    await expect(thrown).rejects.toThrow('thrown');
    expect(await after).toBe('after');
  });
});

describe('createQueue join', () => {
  it('counts a queue’s running and waiting calls in the one it joins, and those to come: none starts until the union is under the concurrency, the moved ones after the other’s own', async () => {
    const token = createQueue(2);
    const customer = createQueue(2);
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof deferred>>();
    const run = (queue: ReturnType<typeof createQueue>, name: string) => {
      const gate = deferred();
      gates.set(name, gate);
      return queue.run(async () => {
        started.push(name);
        await gate.promise;
      });
    };
    const runs = [run(token, 't1'), run(token, 't2'), run(token, 't3'), run(customer, 'c1'), run(customer, 'c2')];
    await tick();
    expect(started).toEqual(['t1', 't2', 'c1', 'c2']);
    token.join(customer);
    expect(token.idle()).toBe(true);
    runs.push(run(token, 'later'), run(customer, 'c3'));
    // Four running where two may: each that ends leaves the union over its concurrency until two have.
    gates.get('t1')!.resolve();
    gates.get('c1')!.resolve();
    await tick();
    expect(started).toEqual(['t1', 't2', 'c1', 'c2']);
    gates.get('t2')!.resolve();
    await tick();
    expect(started).toEqual(['t1', 't2', 'c1', 'c2', 't3']);
    gates.get('c2')!.resolve();
    await tick();
    expect(started).toEqual(['t1', 't2', 'c1', 'c2', 't3', 'later']);
    gates.get('t3')!.resolve();
    await tick();
    expect(started.at(-1)).toBe('c3');
    gates.get('later')!.resolve();
    gates.get('c3')!.resolve();
    await Promise.all(runs);
    expect(customer.idle()).toBe(true);
  });
});
