// The live snapshots this process keeps (each watched customer's last poll), bounded in bytes
// in all: LIVE_SNAPSHOT_BYTES. A snapshot's size is an estimate of the heap its parsed JSON
// takes, made by walking it.
import type { PollSnapshot } from './coordinator.js';

// V8 on 64 bits, roughly and on the high side: an object's header and two words per property
// (its slot and a share of its hidden class), an array's header and a word per element, a
// string's header and a byte per character (two when one is beyond Latin-1), a heap number.
// Keys are interned (shared), and booleans and null are immediates.
const OBJECT_BYTES = 32;
const PROPERTY_BYTES = 16;
const ARRAY_BYTES = 32;
const ELEMENT_BYTES = 8;
const STRING_BYTES = 16;
const NUMBER_BYTES = 16;
/** One entry of the hub's index of a snapshot's orders by id. */
const INDEX_ENTRY_BYTES = 32;
const WIDE = /[^\u0000-\u00ff]/;

/** The heap a JSON value takes, estimated. Walked without recursion: data from outside may nest deep. */
export function estimateBytes(root: unknown): number {
  let bytes = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') bytes += STRING_BYTES + value.length * (WIDE.test(value) ? 2 : 1);
    else if (typeof value === 'number') bytes += NUMBER_BYTES;
    else if (Array.isArray(value)) {
      bytes += ARRAY_BYTES + ELEMENT_BYTES * value.length;
      for (const element of value) stack.push(element);
    } else if (value !== null && typeof value === 'object') {
      const values = Object.values(value);
      bytes += OBJECT_BYTES + PROPERTY_BYTES * values.length;
      for (const property of values) stack.push(property);
    }
  }
  return bytes;
}

/** A snapshot as the hub keeps it: the snapshot itself and its index of orders by id. */
export const snapshotBytes = (snapshot: PollSnapshot): number => estimateBytes(snapshot) + INDEX_ENTRY_BYTES * snapshot.orders.length;

/** The bytes of the snapshots kept, by customer, against one limit for them all. */
export function createSnapshotBudget(maxBytes: number) {
  const sizes = new Map<string, number>();
  let used = 0;
  return {
    maxBytes,
    /** Bytes taken now. */
    used: () => used,
    /** Takes the customer's new snapshot's bytes in place of its last one's: false, and nothing taken, when they would pass the limit. */
    take(customerId: string, bytes: number): boolean {
      const others = used - (sizes.get(customerId) ?? 0);
      if (others + bytes > maxBytes) return false;
      sizes.set(customerId, bytes);
      used = others + bytes;
      return true;
    },
    /** Gives the customer's bytes back (its snapshot is no longer kept). */
    release(customerId: string): void {
      used -= sizes.get(customerId) ?? 0;
      sizes.delete(customerId);
    },
  };
}

export type SnapshotBudget = ReturnType<typeof createSnapshotBudget>;
