// The records in this process (without REDIS_URL): each kept as its JSON, so no caller holds a
// record the store holds, and the bounds count what Redis would keep. Lost on restart, as every
// customer's notifications then are (they turn them on again).
import { StoreLimitError, type NotificationStore, type StoreBounds } from './contracts.js';
import { decodeRecord, encodeRecord, recordBytes } from './record.js';

export function memoryNotificationStore(bounds: StoreBounds): NotificationStore {
  const records = new Map<string, string>();
  let total = 0;
  const read = (customerId: string) => {
    const text = records.get(customerId);
    if (text === undefined) return null;
    const decoded = decodeRecord(customerId, text);
    return 'record' in decoded ? decoded.record : null;
  };
  return {
    get: async (customerId) => read(customerId),
    // Synchronous from read to write: no other change of this process comes between.
    async update(customerId, change) {
      const next = change(read(customerId));
      const before = recordBytes(records.get(customerId) ?? '');
      if (next === null) {
        records.delete(customerId);
        total -= before;
        return null;
      }
      if (next.customerId !== customerId) throw new Error("a record's customer id is its key's");
      const text = encodeRecord(next);
      const bytes = recordBytes(text);
      if (bytes > bounds.recordBytes) throw new StoreLimitError('bytes');
      if (!records.has(customerId) && records.size >= bounds.customers) throw new StoreLimitError('customers');
      if (bytes > before && total - before + bytes > bounds.totalBytes) throw new StoreLimitError('total');
      records.set(customerId, text);
      total += bytes - before;
      return next;
    },
    customers: async () => [...records.keys()],
  };
}
