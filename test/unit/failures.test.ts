import { describe, expect, it } from 'vitest';
import { toGraphQLError, type CallFailure } from '../../src/upstream/failures.js';

const body = (code: string, message: string) => JSON.stringify({ statusCode: 0, code, message });

describe('toGraphQLError', () => {
  it.each<[CallFailure, string]>([
    [{ kind: 'status', status: 401, body: body('UNAUTHORIZED', 'Token invalid') }, 'UNAUTHENTICATED'],
    [{ kind: 'status', status: 403, body: body('FORBIDDEN', 'Not yours') }, 'FORBIDDEN'],
    [{ kind: 'status', status: 409, body: body('ORDER_STAGE_NOT_ELIGIBLE', 'Not yet') }, 'NOT_AVAILABLE'],
    [{ kind: 'status', status: 409, body: body('SOMETHING_ELSE', 'Conflict') }, 'UPSTREAM_ERROR'],
    [{ kind: 'status', status: 400, body: body('VALIDATION_ERROR', 'orderId is required') }, 'BAD_USER_INPUT'],
    [{ kind: 'status', status: 422, body: '' }, 'BAD_USER_INPUT'],
    [{ kind: 'status', status: 429, body: '', retryAfter: '7' }, 'RATE_LIMITED'],
    [{ kind: 'status', status: 500, body: body('BOOM', 'secret stack at /internal') }, 'UPSTREAM_ERROR'],
    [{ kind: 'status', status: 503, body: '<html>down</html>' }, 'UPSTREAM_ERROR'],
    [{ kind: 'timeout' }, 'UPSTREAM_TIMEOUT'],
    [{ kind: 'network', code: 'ECONNRESET' }, 'UPSTREAM_ERROR'],
    [{ kind: 'malformed', status: 200 }, 'UPSTREAM_ERROR'],
  ])('%j → %s, naming the operation', (failure, code) => {
    const error = toGraphQLError('priceEstimate', failure);
    expect(error.extensions.code).toBe(code);
    expect(error.extensions.operation).toBe('priceEstimate');
  });

  it('carries the upstream status where there was one', () => {
    expect(toGraphQLError('orderPayments', { kind: 'status', status: 403, body: '' }).extensions.upstreamStatus).toBe(403);
    expect(toGraphQLError('orderPayments', { kind: 'timeout' }).extensions.upstreamStatus).toBeUndefined();
  });

  it('uses a 4xx message, never a 5xx one', () => {
    expect(toGraphQLError('priceEstimate', { kind: 'status', status: 409, body: body('ORDER_STAGE_NOT_ELIGIBLE', 'Estimate not available for RESERVED') }).message).toBe(
      'Estimate not available for RESERVED',
    );
    const fiveHundred = toGraphQLError('priceEstimate', { kind: 'status', status: 500, body: body('BOOM', 'db password is hunter2') });
    expect(fiveHundred.message).not.toContain('hunter2');
  });

  it('drops a 4xx message that quotes a URL', () => {
    const error = toGraphQLError('nearestPickupCenter', {
      kind: 'status',
      status: 400,
      body: body('VALIDATION_ERROR', 'bad request to http://internal/api?orderId=1&token=abc'),
    });
    expect(error.message).not.toMatch(/http|token=abc/);
  });

  it('turns Retry-After into retryAfterSeconds, in seconds or as a date', () => {
    expect(toGraphQLError('login', { kind: 'status', status: 429, body: '', retryAfter: '7' }).extensions.retryAfterSeconds).toBe(7);
    const inTen = new Date(Date.now() + 10_000).toUTCString();
    const seconds = toGraphQLError('login', { kind: 'status', status: 429, body: '', retryAfter: inTen }).extensions
      .retryAfterSeconds as number;
    expect(seconds).toBeGreaterThanOrEqual(8);
    expect(seconds).toBeLessThanOrEqual(10);
    expect(toGraphQLError('login', { kind: 'status', status: 429, body: '' }).extensions).not.toHaveProperty('retryAfterSeconds');
  });
});
