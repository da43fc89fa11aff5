// A timer for a moment however far off (a token's expiry): Node's setTimeout fires at once,
// with a TimeoutOverflowWarning, for any delay above 2^31-1 ms (24.8 days).

/** The longest delay setTimeout keeps. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `fire` once at epoch ms `at` (or at once, in a later tick, when that has passed). A
 * far moment is waited for in steps of at most MAX_TIMER_MS, the clock read again at each, so
 * it fires at the true moment and never early. The timer does not keep the process alive.
 * Returns its cancel.
 */
export function callAt(at: number, fire: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let cancelled = false;
  const step = () => {
    if (cancelled) return;
    const left = at - Date.now();
    // Not a number is no moment to wait for: fired, never a loop of 1 ms timers.
    if (!(left > 0)) return fire();
    timer = setTimeout(step, Math.min(left, MAX_TIMER_MS));
    timer.unref();
  };
  timer = setTimeout(step, 0);
  timer.unref();
  return () => {
    cancelled = true;
    clearTimeout(timer);
  };
}
