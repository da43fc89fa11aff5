// The live streams' expiry timer: a token's expiry however far off (Node's setTimeout fires at
// once, with a TimeoutOverflowWarning, for any delay above 2^31-1 ms, 24.8 days).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { callAt, MAX_TIMER_MS } from '../../src/live/timer.js';

const DAY_MS = 86_400_000;

afterEach(() => {
  vi.useRealTimers();
});

describe('callAt', () => {
  it('a moment 40 days ahead: nothing fires before it, it fires once at it', () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    const at = Date.now() + 40 * DAY_MS;
    const fired: number[] = [];
    callAt(at, () => fired.push(Date.now()));
    // The fake clock, like Node, fires a longer delay after 1 ms.
    vi.advanceTimersByTime(MAX_TIMER_MS);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(at - Date.now() - 1);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([at]);
    vi.advanceTimersByTime(100 * DAY_MS);
    expect(fired).toHaveLength(1);
  });

  it('cancelled between steps, it never fires', () => {
    vi.useFakeTimers({ now: 0 });
    const fired: number[] = [];
    const cancel = callAt(60 * DAY_MS, () => fired.push(Date.now()));
    vi.advanceTimersByTime(30 * DAY_MS);
    cancel();
    vi.advanceTimersByTime(60 * DAY_MS);
    expect(fired).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a moment passed, or not a number, fires in a later tick, once', () => {
    vi.useFakeTimers({ now: 1000 });
    const fired: string[] = [];
    callAt(0, () => fired.push('passed'));
    callAt(Number.NaN, () => fired.push('NaN'));
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(0);
    expect(fired.sort()).toEqual(['NaN', 'passed']);
    vi.advanceTimersByTime(DAY_MS);
    expect(fired).toHaveLength(2);
  });

  it('with Node’s own timers: no TimeoutOverflowWarning, and nothing fires early', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const fired: number[] = [];
    const cancel = callAt(Date.now() + 40 * DAY_MS, () => fired.push(Date.now()));
    await new Promise((resolve) => setTimeout(resolve, 50));
    cancel();
    process.off('warning', onWarning);
    expect(fired).toEqual([]);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });
});
