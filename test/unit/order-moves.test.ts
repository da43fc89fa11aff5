// The demo order's moves on a timer (src/simulator/moves.ts): the next move comes a whole
// interval after the last one, whether a trigger or the timer made it, even when several moves
// fall in one millisecond (each takes the next, ahead of the clock).
import { afterEach, expect, it, vi } from 'vitest';
import { createSeedData } from '../../src/simulator/data.js';
import { createOrderMover, MOVING_STAGES, scheduleMoves } from '../../src/simulator/moves.js';

afterEach(() => {
  vi.useRealTimers();
});

const EVERY_MS = 60_000;

it('moves in one millisecond: each next move is a whole interval after its own move', () => {
  vi.useFakeTimers({ now: Date.now() });
  const moves = scheduleMoves(createOrderMover(createSeedData()), EVERY_MS);
  const made = MOVING_STAGES.map(() => moves.advance());
  moves.stop();
  expect(made.map((move) => Date.parse(move.nextAt) - Date.parse(move.at))).toEqual(MOVING_STAGES.map(() => EVERY_MS));
});

it('the timer moves the order a whole interval after a trigger’s move, then every interval', () => {
  vi.useFakeTimers({ now: Date.now() });
  const mover = createOrderMover(createSeedData());
  const timed: number[] = [];
  const moves = scheduleMoves(
    {
      advance: () => {
        const move = mover.advance();
        timed.push(Date.parse(move.at));
        return move;
      },
    },
    EVERY_MS,
  );
  vi.advanceTimersByTime(EVERY_MS / 2);
  const triggered = Date.parse(moves.advance().at);
  vi.advanceTimersByTime(EVERY_MS - 1);
  expect(timed).toEqual([triggered]); // the trigger's own
  vi.advanceTimersByTime(1 + EVERY_MS);
  expect(timed).toEqual([triggered, triggered + EVERY_MS, triggered + 2 * EVERY_MS]);
  moves.stop();
});
