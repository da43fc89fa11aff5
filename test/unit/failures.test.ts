// What an upstream call's failure becomes (src/upstream/failures.ts): its error code, status,
// message and retryAfterSeconds; the failures a per-order lookup answers with null; and the
// upstream messages that must never reach a caller.
import { describe, expect, it } from 'vitest';
import { CONTRACT, OPERATION_NAMES } from '../../src/upstream/contract.js';
import { isAbsence, toGraphQLError, type CallFailure } from '../../src/upstream/failures.js';

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
    expect(
      toGraphQLError('priceEstimate', {
        kind: 'status',
        status: 409,
        body: body('ORDER_STAGE_NOT_ELIGIBLE', 'Estimate not available for RESERVED'),
      }).message,
    ).toBe('Estimate not available for RESERVED');
    const fiveHundred = toGraphQLError('priceEstimate', { kind: 'status', status: 500, body: body('BOOM', 'db password is hunter2') });
    expect(fiveHundred.message).not.toContain('hunter2');
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

  it('holds a Retry-After to a day: past a safe integer or years ahead, the upstream cannot make a client wait longer', () => {
    const after = (retryAfter: string) =>
      toGraphQLError('login', { kind: 'status', status: 429, body: '', retryAfter }).extensions.retryAfterSeconds;
    expect(after('99999999999999999999999')).toBe(86_400);
    expect(after(new Date(Date.now() + 10 * 365 * 86_400_000).toUTCString())).toBe(86_400);
    expect(after('86399')).toBe(86_399);
  });
});

describe('isAbsence: the failures a per-order lookup answers with null and no error', () => {
  const staged = OPERATION_NAMES.filter((operation) => 'activeFrom' in CONTRACT[operation]);
  const unstaged = OPERATION_NAMES.filter((operation) => !staged.includes(operation));
  const notEligible: CallFailure = { kind: 'status', status: 409, body: body('ORDER_STAGE_NOT_ELIGIBLE', 'Not yet') };

  it('the contract gives some operations a stage and not others (else the cases below prove nothing)', () => {
    expect(staged.length).toBeGreaterThan(0);
    expect(unstaged.length).toBeGreaterThan(0);
  });

  it.each(staged)('%s (has a stage): its 409 ORDER_STAGE_NOT_ELIGIBLE and a 404 are absences; any other 409 is not', (operation) => {
    expect(isAbsence(operation, notEligible)).toBe(true);
    expect(isAbsence(operation, { kind: 'status', status: 404, body: '' })).toBe(true);
    expect(isAbsence(operation, { kind: 'status', status: 409, body: body('SOMETHING_ELSE', 'Conflict') })).toBe(false);
    expect(isAbsence(operation, { kind: 'status', status: 409, body: 'not json' })).toBe(false);
  });

  it.each(unstaged)('%s (no stage): a 409 ORDER_STAGE_NOT_ELIGIBLE is not an absence (it stays NOT_AVAILABLE)', (operation) => {
    expect(isAbsence(operation, notEligible)).toBe(false);
    expect(toGraphQLError(operation, notEligible).extensions.code).toBe('NOT_AVAILABLE');
  });

  it.each<CallFailure>([
    { kind: 'timeout' },
    { kind: 'status', status: 500, body: '' },
    { kind: 'status', status: 403, body: '' },
    { kind: 'malformed', status: 200 },
  ])('a failure is never an absence: %j', (failure) => {
    for (const operation of OPERATION_NAMES) expect(isAbsence(operation, failure)).toBe(false);
  });
});

/** Upstream messages that must never reach a caller, each with what it leaks. */
const LEAKY_MESSAGES: [string, string][] = [
  ['an internal host name', 'Could not reach orders-db.internal.example'],
  ['a bare host name with a port', 'Connection refused by pricing-svc:8443'],
  ['an IP and port', 'upstream 10.0.3.7:5432 refused the connection'],
  ['an IPv6 address', 'timeout talking to [fd00::12]'],
  ['a path with a query string', 'GET /api/v1/orders?id=42&token=abc failed'],
  ['an http URL', 'see http://wiki.internal/runbooks/42'],
  ['an https URL', 'https://auth.internal/oauth/token rejected the grant'],
  ['a jdbc URL', 'jdbc:postgresql://db-primary:5432/orders rejected the query'],
  ['a mailto URL', 'contact mailto:oncall@corp.example'],
  ['a redis URL', 'redis://cache-1 is down'],
  ['a file path', 'could not open /etc/secrets/service.key'],
  ['a Windows path', 'C:\\services\\orders\\config.json is missing'],
  ['a JWT', 'token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ is invalid'],
  ['a long opaque token', 'refresh token dGhpcy1pcy1hLWxvbmctb3BhcXVlLXJlZnJlc2gtdG9rZW4tdmFsdWU was revoked'],
  ['a stack frame', 'TypeError: Cannot read properties of undefined (reading "id")\n    at handler (/srv/app/index.js:10:5)'],
  ['an exception name', 'NullPointerException in OrderService'],
  ['markup', '<b>Bad</b> request'],
  ['a SQL fragment', 'SELECT * FROM orders WHERE id = 42'],
  ['a template', 'invalid value ${orderId}'],
  ['a line break', 'invalid\nrequest'],
  ['an email address', 'escalate to ops@corp.example'],
  ['a JSON fragment', 'invalid body {"password":"x"}'],
  ['a URL with a token in its query', 'bad request to http://internal/api?orderId=1&token=abc'],
];

describe('the upstream’s own message in a 4xx: passed on only when it is a plain sentence', () => {
  const messageFor = (status: number, message: string) =>
    toGraphQLError('nearestPickupCenter', { kind: 'status', status, body: body('X', message) }).message;

  it.each(LEAKY_MESSAGES.flatMap(([what, message]) => [400, 403, 409, 422].map((status) => [what, status, message] as const)))(
    '%s in a %i message: the fixed message instead',
    (_what, status, message) => {
      const answered = messageFor(status, message);
      expect(answered).not.toContain(message);
      expect(answered).toMatch(
        /^(The upstream rejected the request as invalid\.|Not allowed to see this\.|The upstream reported a conflict \(nearestPickupCenter\)\.)$/,
      );
    },
  );

  it.each([
    'Pickup scheduling is not available for order status ORDER_CONFIRMED',
    'fee_type must be one of: ORDER_FEE',
    'Order 8df30a96-e5ea-4810-9653-331f5f30c97b does not belong to the authenticated user',
  ])('a plain sentence passes: %s', (message) => {
    expect(messageFor(400, message)).toBe(message);
  });
});
