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
  run<T>(call: () => Promise<T>): Promise<T>;
}

/**
 * One request's upstream budget. However much a query fans out, it makes at most
 * `calls` calls, `concurrency` at a time, so no caller can flood the upstream or take the
 * shared connection pools from the others; with a `caller`, its calls also wait their turn
 * among all of that caller's.
 */
export function createCallBudget(limits: BudgetLimits, caller?: CallerAllowance) {
  const { run } = createQueue(limits.concurrency, caller);
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
 * than a general-purpose limiter. A queue can join another (`join`): what it counted is the
 * other's from then on, each call released where it is counted.
 */
export class CallQueue {
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  #joined: CallQueue | undefined;

  /**
   * With `inner`, a call given its turn here runs through `inner` (waiting there too, a
   * caller's allowance): one queue behind the other without a closure per call to chain them.
   */
  constructor(
    readonly concurrency: number,
    private readonly inner?: CallerAllowance,
  ) {}

  // A property, not a method: a request's budget passes it on as it is.
  readonly run = <T>(call: () => Promise<T>): Promise<T> => {
    const counted = this.#counted();
    if (counted.#running < counted.concurrency) return this.#start(call);
    return new Promise<T>((resolve) => counted.#waiting.push(() => resolve(this.#start(call))));
  };

  /** Nothing running or waiting here (a queue that joined another holds nothing of its own). */
  idle(): boolean {
    return this.#running === 0 && this.#waiting.length === 0;
  }

  /**
   * Counts this queue's calls in `other`'s from now on: those running (the other may run more
   * than its concurrency until they end), those waiting (after the other's own), and those to come.
   */
  join(other: CallQueue): void {
    const into = other.#counted();
    if (into === this) return;
    into.#running += this.#running;
    into.#waiting.push(...this.#waiting);
    this.#running = 0;
    this.#waiting.length = 0;
    this.#joined = into;
    into.#startWaiting();
  }

  /** The queue this one's calls are counted in: itself, or the one it joined. */
  #counted(): CallQueue {
    return this.#joined ? this.#joined.#counted() : this;
  }

  #start<T>(call: () => Promise<T>): Promise<T> {
    this.#counted().#running += 1;
    let result: Promise<T>;
    try {
      result = this.inner ? this.inner.run(call) : call();
    } catch (error) {
      // A call that throws before returning its promise fails like one that rejects.
      result = Promise.reject(error);
    }
    // then, not finally: finally makes two closures and a promise more for every call.
    return result.then(this.#ended, this.#failed);
  }

  readonly #ended = <T>(value: T): T => {
    this.#done();
    return value;
  };

  readonly #failed = (error: unknown): never => {
    this.#done();
    throw error;
  };

  #done(): void {
    const counted = this.#counted();
    counted.#running -= 1;
    counted.#startWaiting();
  }

  /** Starts waiting calls while there is room (none while a join keeps it past its concurrency). */
  #startWaiting(): void {
    while (this.#running < this.concurrency && this.#waiting.length > 0) this.#waiting.shift()!();
  }
}

/** A queue of `concurrency` (a request's own, a caller's), in front of `inner` when given. */
export const createQueue = (concurrency: number, inner?: CallerAllowance) => new CallQueue(concurrency, inner);
