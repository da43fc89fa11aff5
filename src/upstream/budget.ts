// One request's upstream budget: how many calls, how many at once, how many retries.

/** What one request may make the upstream do (the server's config fills it from the UPSTREAM_*_PER_REQUEST settings). */
export interface BudgetLimits {
  /** Calls at most, retries included. */
  calls: number;
  /** Calls in flight at once: the rest wait their turn (and their wait counts against the deadline). */
  concurrency: number;
  /** Retries at most, across all of the request's calls. */
  retries: number;
}

/**
 * What the request's caller may hold of the upstream across all its requests and streams (the
 * server's caller limits): its calls run through `run`, at most so many in flight at once.
 */
export interface CallerAllowance {
  /** Who the caller is, as the limits count it (a verified customer, else an address). */
  readonly key: string;
  run<T>(call: () => Promise<T>): Promise<T>;
}

/**
 * One request's upstream budget. However much a query fans out, it makes at most
 * `calls` calls, `concurrency` at a time, so no caller can flood the upstream or take the
 * shared connection pools from the others; with a `caller`, its calls also wait their turn
 * among all of that caller's.
 */
export function createCallBudget(limits: BudgetLimits, caller?: CallerAllowance) {
  const own = createQueue(limits.concurrency);
  const run: <T>(call: () => Promise<T>) => Promise<T> = caller ? (call) => own.run(() => caller.run(call)) : own.run;
  return {
    limits,
    caller,
    /** Calls made or started, retries included. */
    calls: 0,
    retries: 0,
    /** Calls refused because the budget was spent. */
    refused: 0,
    /** Takes a call from the budget; false (and counted) when it is spent. */
    take(): boolean {
      if (this.calls >= limits.calls) {
        this.refused += 1;
        return false;
      }
      this.calls += 1;
      return true;
    },
    /** Takes a retry: false when the request's retries or its calls are spent. */
    takeRetry(): boolean {
      if (this.retries >= limits.retries || !this.take()) return false;
      this.retries += 1;
      return true;
    },
    /** Runs a call when fewer than `concurrency` of this request's calls are in flight. */
    run,
  };
}

export type CallBudget = ReturnType<typeof createCallBudget>;

/**
 * At most `concurrency` calls running, the rest started in the order they came as running
 * ones settle. A counter and an array, made once per request: cheaper on the request path
 * than a general-purpose limiter. `idle`: nothing running or waiting.
 */
export function createQueue(concurrency: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  const done = () => {
    running -= 1;
    waiting.shift()?.();
  };
  const start = <T>(call: () => Promise<T>): Promise<T> => {
    running += 1;
    let result: Promise<T>;
    try {
      result = call();
    } catch (error) {
      // A call that throws before returning its promise fails like one that rejects.
      result = Promise.reject(error);
    }
    return result.finally(done);
  };
  return {
    run: <T>(call: () => Promise<T>): Promise<T> => (running < concurrency ? start(call) : new Promise<T>((resolve) => waiting.push(() => resolve(start(call))))),
    idle: () => running === 0 && waiting.length === 0,
  };
}
