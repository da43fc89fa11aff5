// The order histories kept in this process (no REDIS_URL): each customer's history as its JSON
// text, least recently used customers evicted past HISTORY_BYTES in all; lost on restart.
import { LRUCache } from 'lru-cache';
import type { HistoryStore } from './history.js';

// A kept entry beyond its text: the cache's node and key (the customer id), the string's
// header; on the high side (bench/history-memory.ts measures the heap a history really takes).
const ENTRY_BYTES = 200;
const WIDE = /[^\u0000-\u00ff]/;

/** The heap a string takes: a byte per character, two when one is beyond Latin-1. */
const stringBytes = (value: string) => value.length * (WIDE.test(value) ? 2 : 1);

export interface MemoryHistoryStore extends HistoryStore {
  /** Customers kept, and the bytes their histories take (estimated). */
  stats(): { customers: number; bytes: number };
}

export function memoryHistoryStore(totalBytes: number): MemoryHistoryStore {
  const histories = new LRUCache<string, string>({
    maxSize: totalBytes,
    sizeCalculation: (history, customerId) => ENTRY_BYTES + stringBytes(customerId) + stringBytes(history),
  });
  return {
    read: async (customerId) => histories.get(customerId) ?? null,
    // One synchronous read-change-write: nothing runs in between.
    async update(customerId, change) {
      const next = change(histories.get(customerId) ?? null);
      if (next !== null) histories.set(customerId, next);
    },
    stats: () => ({ customers: histories.size, bytes: histories.calculatedSize }),
  };
}
