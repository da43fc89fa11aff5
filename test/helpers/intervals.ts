// Counting what happens per interval on a machine that may be loaded: the window's real length
// is measured (a busy machine sleeps longer than asked), so counts are compared with the
// intervals that really passed, never with a time a slow run would miss.

/** `count()`'s growth over about `intervals` intervals of `intervalMs`, and how many intervals really passed. */
export async function overIntervals(count: () => number, intervalMs: number, intervals: number) {
  const before = count();
  const since = Date.now();
  await new Promise((resolve) => setTimeout(resolve, intervalMs * intervals));
  return { count: count() - before, intervals: (Date.now() - since) / intervalMs };
}

/**
 * Waits until `condition` holds, looking every 20 ms: a wait for what a test needs, never a
 * time it assumes. Fails after `timeoutMs`, a guard against a hang (a loaded machine is slow).
 */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  for (const started = Date.now(); !(await condition()); await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (Date.now() - started > timeoutMs) throw new Error(`the condition did not hold within ${timeoutMs} ms`);
  }
}
