// What the page says when a reading of the order brings no data at all: the API's code for a
// request ended or refused as a whole, in the customer's words, or the transport's own message.
import { describe, expect, it } from 'vitest';
import type { OrderGraphError } from '@order-graph/client';
import { requestFailure } from '../src/tracked-order';

const error = (code?: string, message = 'The gateway says so.') =>
  ({ message, ...(code ? { extensions: { code } } : {}) }) as OrderGraphError;

describe('a reading with no data', () => {
  it('a request ended or refused as a whole says why in words, never its code', () => {
    expect(requestFailure(null, [error('OVERLOADED')])).toBe('the order service is busy right now: try again in a moment.');
    expect(requestFailure(null, [error('ANSWER_TOO_LARGE')])).toBe('the order is too large to show at once.');
    expect(requestFailure(undefined, [error('RATE_LIMITED')])).toBe('the order service is busy right now.');
    expect(requestFailure(null, [error('SOMETHING_NEW')])).toBe('the order service had a problem.');
  });

  it('without a code, the transport’s message; with data, or no error, nothing failed as a whole', () => {
    expect(requestFailure(null, [error(undefined, 'no answer')])).toBe('no answer');
    expect(requestFailure({ me: null }, [error('UNAUTHENTICATED')])).toBeNull();
    expect(requestFailure(null, [])).toBeNull();
  });
});
