// The call budget's queue: at most `concurrency` calls at once, the rest in order, errors passed on.
import { describe, expect, it } from 'vitest';
import { createCallBudget } from '../../src/upstream/budget.js';

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
