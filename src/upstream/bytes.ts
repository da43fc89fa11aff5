// The bytes each request holds (the upstream answers it read, the answer it builds from them),
// within its own budget and, with every other request's, within the process's ceiling.
import { AnswerTooLargeError, OverloadedError, type ErrorCode, type GatewayError, type UpstreamErrorDetails } from '../errors.js';

/** Why a budget ended: its own bytes passed REQUEST_BYTES, or the process had no room left for them. */
export type BytesEnd = Extract<ErrorCode, 'ANSWER_TOO_LARGE' | 'OVERLOADED'>;

/** How long the ceiling sheds after it could not make room: the Retry-After a refusal gives. */
export const SHED_FOR_MS = 1000;

/**
 * What one execution (a query or mutation, a live event, a poll) holds: the upstream answers'
 * bytes as they arrive (the transports count each chunk before keeping it) and the answer's
 * estimated size. Past its own limit it ends with ANSWER_TOO_LARGE; when the process has no
 * room for what it takes, with OVERLOADED. An ended budget takes nothing more: its calls not
 * yet made are refused, and those in flight are cut at their next chunk.
 */
export class ByteBudget {
  /** Bytes taken, in all. */
  held = 0;
  /** Why it ended, or null while it may still take. */
  ended: BytesEnd | null = null;
  /** Of `held`, what the ceiling counts now: none once released or ended. */
  counted = 0;
  #released = false;

  constructor(
    readonly limit: number,
    private readonly ceiling: ByteCeiling,
  ) {}

  /** Takes `bytes` more; false once it cannot (and then it has ended). */
  take(bytes: number): boolean {
    if (this.ended) return false;
    if (this.held + bytes > this.limit) return this.end('ANSWER_TOO_LARGE');
    if (!this.#released && !this.ceiling.makeRoom(this, bytes)) return this.end('OVERLOADED');
    this.held += bytes;
    if (!this.#released) this.ceiling.count(this, bytes);
    return true;
  }

  /** Ends it: nothing more is taken, and the ceiling stops counting what it held (its request is ending). */
  end(reason: BytesEnd): false {
    this.ended ??= reason;
    this.ceiling.uncount(this);
    return false;
  }

  /** Its execution is over: the ceiling stops counting it. Whatever it still takes counts against its own limit alone. */
  release(): void {
    this.#released = true;
    this.ceiling.uncount(this);
  }

  /** A budget of its own for another execution of the same request (a live event). */
  renewed(): ByteBudget {
    return new ByteBudget(this.limit, this.ceiling);
  }

  /** Why it ended, as its request's error: past its limit, or no room in the process (with the Retry-After that asks). */
  error(details: UpstreamErrorDetails = {}): GatewayError {
    if (this.ended === 'OVERLOADED') return this.ceiling.overloaded(details);
    return new AnswerTooLargeError(
      `This request reached its budget of ${this.limit} bytes (the upstream answers it read and its answer): ask for fewer orders or fields at a time.`,
      details,
    );
  }
}

/**
 * The bytes all executions in flight hold together, within `limit` (IN_FLIGHT_BYTES, a share of
 * the heap the process runs with). A budget that takes what does not fit makes room first: the
 * executions holding more than it then would give way, the largest first (they end with
 * OVERLOADED), so a crowd of large answers cannot keep a small one out. When that is not room
 * enough the taker ends, and for `shedMs` the ceiling is `shedding`: new work is refused at
 * once unless some execution holds more than `smallBytes` (what a small request needs: it would
 * give way to the newcomer), so a flood of small requests costs the upstream no calls it cannot
 * use, while a crowd of large ones keeps nobody out.
 */
export class ByteCeiling {
  held = 0;
  #shedUntil = 0;
  readonly #holders = new Set<ByteBudget>();

  /** How long the ceiling sheds once room could not be made. */
  readonly shedMs: number;
  /** What a small request holds (a whole order of the default page): one holding more gives way to newcomers. */
  readonly smallBytes: number;

  constructor(
    readonly limit: number,
    { shedMs = SHED_FOR_MS, smallBytes = 0 }: { shedMs?: number; smallBytes?: number } = {},
  ) {
    this.shedMs = shedMs;
    this.smallBytes = smallBytes;
  }

  /** The error of work refused, or ended, for want of room: try again once the shedding is over. */
  overloaded(details: UpstreamErrorDetails = {}): GatewayError {
    return new OverloadedError('The gateway is holding as much as it may for the requests in flight: try again in a moment.', {
      ...details,
      retryAfterSeconds: Math.ceil(this.shedMs / 1000),
    });
  }

  /** A budget of `limit` bytes for one execution. */
  budget(limit: number): ByteBudget {
    return new ByteBudget(limit, this);
  }

  /** Whether room could not be made a moment ago (readiness and the metrics report it). */
  shedding(): boolean {
    return Date.now() < this.#shedUntil;
  }

  /** Whether new work may start: not shedding, or some execution holds more than a small request needs (it would give way). */
  admits(): boolean {
    if (!this.shedding()) return true;
    for (const holder of this.#holders) if (holder.counted > this.smallBytes) return true;
    return false;
  }

  /** Whether `bytes` more fit for `taker`, ending larger holders to make room; false, and shedding begins, when they do not. */
  makeRoom(taker: ByteBudget, bytes: number): boolean {
    if (this.held + bytes <= this.limit) return true;
    const after = taker.counted + bytes;
    const larger = [...this.#holders].filter((holder) => holder.counted > after).sort((a, b) => b.counted - a.counted);
    for (const holder of larger) {
      if (this.held + bytes <= this.limit) break;
      holder.end('OVERLOADED');
    }
    if (this.held + bytes <= this.limit) return true;
    this.#shedUntil = Date.now() + this.shedMs;
    return false;
  }

  count(holder: ByteBudget, bytes: number): void {
    holder.counted += bytes;
    this.held += bytes;
    this.#holders.add(holder);
  }

  uncount(holder: ByteBudget): void {
    this.held -= holder.counted;
    holder.counted = 0;
    this.#holders.delete(holder);
  }

  /** Executions holding bytes now. */
  holders(): number {
    return this.#holders.size;
  }
}
