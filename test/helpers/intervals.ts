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
