// JSON text read back from outside the process (Redis, a store of our own): parsed and checked
// against its shape, refused with a reason that never holds the text, never thrown.
import type { z } from 'zod';

/** The outcome of reading a value: what it is, or why it was not taken. */
export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

/** `json` as a value of `schema`'s shape, or why not (`notOfShape` when zod names no issue). */
export function readJson<T>(schema: z.ZodType<T, unknown>, json: string, notOfShape = 'not of its shape'): Checked<T> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const result = schema.safeParse(value);
  return result.success ? { ok: true, value: result.data } : { ok: false, reason: result.error.issues[0]?.message ?? notOfShape };
}
