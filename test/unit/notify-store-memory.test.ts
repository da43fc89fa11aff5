// The notification records kept in this process (src/notify/store-memory.ts): each a copy of
// its own, within NOTIFY_CUSTOMERS and NOTIFY_RECORD_BYTES, a change returning null deleting it.
import { describe, expect, it } from 'vitest';
import { StoreLimitError, type CustomerRecord } from '../../src/notify/contracts.js';
import { encodeRecord, recordBytes } from '../../src/notify/record.js';
import { memoryNotificationStore } from '../../src/notify/store-memory.js';

const record = (customerId: string, sentAt: number[] = []): CustomerRecord => ({
  customerId,
  refreshToken: 'v1.k1.sealed',
  accessToken: null,
  accessExpiresAt: null,
  targets: [],
  fields: null,
  sentAt,
});

const bytesOf = (kept: CustomerRecord) => recordBytes(encodeRecord(kept));

describe('memoryNotificationStore', () => {
  it('keeps a copy: what a caller does to a record it was given changes nothing kept', async () => {
    const store = memoryNotificationStore({ customers: 10, recordBytes: 16 * 1024, totalBytes: 1024 * 1024 });
    const given = record('c1');
    await store.update('c1', () => given);
    given.sentAt.push(1);
    (await store.get('c1'))!.sentAt.push(2);
    expect((await store.get('c1'))!.sentAt).toEqual([]);
  });

  it('NOTIFY_CUSTOMERS: a new customer past it is refused, one kept still changes; null deletes and makes room', async () => {
    const store = memoryNotificationStore({ customers: 2, recordBytes: 16 * 1024, totalBytes: 1024 * 1024 });
    await store.update('c1', () => record('c1'));
    await store.update('c2', () => record('c2'));
    await expect(store.update('c3', () => record('c3'))).rejects.toEqual(new StoreLimitError('customers'));
    await store.update('c1', (current) => ({ ...current!, sentAt: [5] }));
    expect((await store.get('c1'))!.sentAt).toEqual([5]);
    await store.update('c2', () => null);
    await store.update('c3', () => record('c3'));
    expect((await store.customers()).toSorted()).toEqual(['c1', 'c3']);
  });

  it('NOTIFY_RECORD_BYTES: a larger record is refused and the one kept stays', async () => {
    const store = memoryNotificationStore({ customers: 2, recordBytes: 1024, totalBytes: 1024 * 1024 });
    await store.update('c1', () => record('c1'));
    await expect(store.update('c1', (current) => ({ ...current!, sentAt: Array(1000).fill(1) }))).rejects.toEqual(
      new StoreLimitError('bytes'),
    );
    expect((await store.get('c1'))!.sentAt).toEqual([]);
  });

  it('NOTIFY_BYTES: the records together may not grow past it; a record may shrink, and one gone makes room', async () => {
    // Room for two records and 50 bytes more.
    const store = memoryNotificationStore({ customers: 10, recordBytes: 16 * 1024, totalBytes: 2 * bytesOf(record('c1')) + 50 });
    await store.update('c1', () => record('c1'));
    await store.update('c2', () => record('c2'));
    await expect(store.update('c3', () => record('c3'))).rejects.toEqual(new StoreLimitError('total'));
    await expect(store.update('c1', (current) => ({ ...current!, sentAt: Array(100).fill(1) }))).rejects.toEqual(
      new StoreLimitError('total'),
    );
    await store.update('c1', (current) => ({ ...current!, sentAt: Array(20).fill(1) }));
    expect((await store.get('c1'))!.sentAt).toHaveLength(20);
    await store.update('c2', () => null);
    await store.update('c3', () => record('c3'));
    expect((await store.customers()).toSorted()).toEqual(['c1', 'c3']);
  });

  it("a record under another customer's id is refused", async () => {
    const store = memoryNotificationStore({ customers: 2, recordBytes: 1024, totalBytes: 1024 * 1024 });
    await expect(store.update('c1', () => record('c2'))).rejects.toThrow("a record's customer id is its key's");
    expect(await store.customers()).toEqual([]);
  });
});
