// The response cache's store in this process's memory, by the bytes and entries it accounts
// for (what the heap holds: measured at about the accounted bytes or less, see
// test/integration/response-cache.test.ts for the heap after GC through a real gateway).
import { describe, expect, it } from 'vitest';
import { memoryResponseStore } from '../../src/server/response-cache.js';

const MIB = 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const key = (i: number) => `caller.${String(i).padStart(43, '0')}`;
const text = (bytes: number, i: number) => `${i}:`.padEnd(bytes, 'x');

describe('memoryResponseStore', () => {
  it('50 answers of 1 MB in 8 MiB: at most 7 kept, the newest, within the budget', async () => {
    const store = memoryResponseStore({ entry: 2 * MIB, total: 8 * MIB });
    for (let i = 0; i < 50; i++) await store.set(key(i), text(MIB, i), [`Order:${i}`], 60_000);
    const { entries, bytes } = store.stats();
    expect(entries).toBe(7);
    expect(bytes).toBeLessThanOrEqual(8 * MIB);
    expect(await store.get(key(49))).toBe(text(MIB, 49));
    expect(await store.get(key(42))).toBeNull();
  });

  it('an answer over the entry bound is not kept; nor are a million tiny ones past the budget', async () => {
    const store = memoryResponseStore({ entry: 1000, total: MIB });
    await store.set(key(0), text(1001, 0), [], 60_000);
    expect(store.stats()).toEqual({ entries: 0, bytes: 0 });
    for (let i = 0; i < 100_000; i++) await store.set(key(i), 'x', [], 60_000);
    // Each counts for what keeping it costs, not its one byte of text.
    expect(store.stats().entries).toBeLessThan(MIB / 512);
    expect(store.stats().bytes).toBeLessThanOrEqual(MIB);
  });

  it('expired answers are gone at their ttl, though nobody asks for them', async () => {
    const store = memoryResponseStore({ entry: MIB, total: 32 * MIB });
    for (let i = 0; i < 10; i++) await store.set(key(i), text(100_000, i), [`Order:${i}`], 200);
    expect(store.stats().entries).toBe(10);
    await sleep(600);
    expect(store.stats()).toEqual({ entries: 0, bytes: 0 });
  });

  it('invalidating an order forgets the answers that hold it, and only those', async () => {
    const store = memoryResponseStore({ entry: MIB, total: 32 * MIB });
    await store.set(key(1), 'one', ['Order:a', 'Order:b'], 60_000);
    await store.set(key(2), 'two', ['Order:b'], 60_000);
    await store.set(key(3), 'three', ['Order:c'], 60_000);
    await store.invalidate(['Order:b']);
    expect([await store.get(key(1)), await store.get(key(2)), await store.get(key(3))]).toEqual([null, null, 'three']);
    // The links went with them: a later answer holding Order:a is kept, and invalidated alone.
    await store.set(key(4), 'four', ['Order:a'], 60_000);
    await store.invalidate(['Order:a']);
    expect(store.stats().entries).toBe(1);
  });
});
