// Issue 18, finding 6: failed logins and refreshes against a real gateway and a per-test
// upstream that counts the calls. A stranger cannot lock a customer out (failures count per
// username and client address, with growing delays; the per-username ceiling is far above
// what one address reaches), variants of a username count as one, and refused refresh
// tokens are throttled per address and per token. Client addresses come from X-Forwarded-For
// through a trusted loopback proxy, as behind nginx.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { inProcessGateway, type ResponseError, type TestGateway, type TestGatewayConfig } from '../helpers/harness.js';
import { createStubUpstream, json } from '../helpers/stub-upstream.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  vi.useRealTimers();
  while (cleanups.length) await cleanups.pop()!();
});

const TOKENS = { accessToken: 'a', accessExpiration: 1900000000, refreshToken: 'r' };

/**
 * Logins succeed with the password `right`; refreshes with a token starting `good`; a token
 * starting `grant` is refused as OAuth does (400 invalid_grant), any other with 401.
 */
async function authUpstream() {
  const stub = createStubUpstream((request, res) => {
    const body = JSON.parse(request.body) as { password?: string; refresh_token?: string };
    if (request.path.endsWith('/auth/login')) {
      if (body.password === 'right') return json(res, 200, TOKENS);
      return json(res, 401, { code: 'INVALID_CREDENTIALS', message: 'Incorrect username or password' });
    }
    if (body.refresh_token?.startsWith('good')) return json(res, 200, TOKENS);
    if (body.refresh_token?.startsWith('grant')) return json(res, 400, { error: 'invalid_grant' });
    json(res, 401, { code: 'invalid_grant', message: 'Refresh token is invalid or has already been used' });
  });
  cleanups.push(stub.close);
  const calls = (path: string) => stub.requests.filter((request) => request.path.endsWith(path));
  return { stub, logins: () => calls('/auth/login'), refreshes: () => calls('/auth/refresh') };
}

async function setup(options: TestGatewayConfig = {}) {
  const upstream = await authUpstream();
  const gateway = inProcessGateway({ upstream: upstream.stub, trustedProxies: ['loopback'], ...options });
  cleanups.push(gateway.close);
  return { ...upstream, gateway };
}

type Answer = { data?: unknown; errors?: ResponseError[] };
const post = (gateway: TestGateway, from: string, query: string, variables: Record<string, string>) =>
  gateway
    .fetch(gateway.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify({ query, variables }),
    })
    .then((r) => r.json() as Promise<Answer>);
const login = (gateway: TestGateway, from: string, username: string, password: string) =>
  post(gateway, from, 'mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken } }', {
    u: username,
    p: password,
  });
const refresh = (gateway: TestGateway, from: string, refreshToken: string) =>
  post(gateway, from, 'mutation ($r: String!) { refreshTokens(refreshToken: $r) { accessToken } }', { r: refreshToken });

const code = (answer: Answer) => answer.errors?.[0]?.extensions?.code ?? 'OK';
const retryAfter = (answer: Answer) => answer.errors?.[0]?.extensions?.retryAfterSeconds as number | undefined;
const STRANGER = '203.0.113.66';
const OWNER = '198.51.100.7';

describe('failed logins', () => {
  it('a stranger’s 40 wrong passwords: 5 reach the upstream, the rest wait (RATE_LIMITED, retryAfterSeconds); the owner, on their own address, still logs in', async () => {
    const { gateway, logins } = await setup();
    const answers: Answer[] = [];
    for (let i = 0; i < 40; i++) answers.push(await login(gateway, STRANGER, 'Victim@Example.test', `guess-${i}`));
    const guessesUpstream = logins().length;
    const owner = await login(gateway, OWNER, 'victim@example.test', 'right');
    console.info(`a stranger's 40 guesses: ${guessesUpstream} reached the upstream; the owner's login after them: ${code(owner)}`);

    expect(answers.slice(0, 5).map(code)).toEqual(Array(5).fill('UNAUTHENTICATED'));
    expect(answers.slice(5).map(code)).toEqual(Array(35).fill('RATE_LIMITED'));
    // The first delay (LOGIN_FAILURE_DELAY_S, 30 s), not a 15-minute lock; refused attempts do not extend it.
    for (const answer of answers.slice(5)) expect(retryAfter(answer)).toBeGreaterThanOrEqual(1);
    for (const answer of answers.slice(5)) expect(retryAfter(answer)).toBeLessThanOrEqual(30);
    expect(code(owner)).toBe('OK');
    expect(logins()).toHaveLength(5 + 1);
    // The stranger is still waiting, even with the right password: nothing reaches the upstream.
    expect(code(await login(gateway, STRANGER, 'victim@example.test', 'right'))).toBe('RATE_LIMITED');
    expect(logins()).toHaveLength(6);
    // The owner's own typos get their five free failures, as anyone's.
    const typos = [];
    for (let i = 0; i < 6; i++) typos.push(code(await login(gateway, OWNER, 'victim@example.test', 'typo')));
    expect(typos).toEqual([...Array(5).fill('UNAUTHENTICATED'), 'RATE_LIMITED']);
  });

  it('per client address too, across usernames: 20 failures reach the upstream, the rest RATE_LIMITED; successful logins cost nothing', async () => {
    const { gateway, logins } = await setup();
    for (let i = 0; i < 3; i++) expect(code(await login(gateway, OWNER, 'me@example.test', 'right'))).toBe('OK');
    const codes: unknown[] = [];
    for (let i = 0; i < 25; i++) codes.push(code(await login(gateway, OWNER, `user${i}@example.test`, 'wrong')));
    expect(codes).toEqual([...Array(20).fill('UNAUTHENTICATED'), ...Array(5).fill('RATE_LIMITED')]);
    expect(logins()).toHaveLength(3 + 20);
  });

  it('the delays double from 30 s, each refused attempt without an upstream call; past the window the pair has its free failures again; the right password after a wait gets in and starts afresh', async () => {
    const { gateway, logins } = await setup();
    // The gateway's clock (Date) is the test's: the delays are waited out without waiting, and
    // each retryAfterSeconds is exact however busy the machine is.
    vi.useFakeTimers({ toFake: ['Date'] });
    const wait = (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1000);
    const guess = () => login(gateway, STRANGER, 'victim@example.test', 'wrong');
    for (let i = 0; i < 5; i++) expect(code(await guess())).toBe('UNAUTHENTICATED');
    const waits: unknown[] = [];
    for (let round = 0; round < 5; round++) {
      const refused = await guess();
      expect(code(refused)).toBe('RATE_LIMITED');
      expect(logins()).toHaveLength(5 + round);
      waits.push(retryAfter(refused));
      wait(retryAfter(refused)!);
      expect(code(await guess())).toBe('UNAUTHENTICATED');
    }
    console.info(`delays after the 5 free failures: ${waits.join(', ')} s`);
    expect(waits).toEqual([30, 60, 120, 240, 480]);
    // 930 s since the first failure: the window (900 s) is over, so that last one was a first
    // failure again, and four more are free before the next delay.
    for (let i = 0; i < 4; i++) expect(code(await guess())).toBe('UNAUTHENTICATED');
    const again = await guess();
    expect([code(again), retryAfter(again)]).toEqual(['RATE_LIMITED', 30]);
    expect(logins()).toHaveLength(5 + 5 + 4);

    // The right password waits too, from this address; after the wait it gets in, and the pair starts afresh.
    const right = () => login(gateway, STRANGER, 'victim@example.test', 'right');
    expect(code(await right())).toBe('RATE_LIMITED');
    wait(30);
    expect(code(await right())).toBe('OK');
    for (let i = 0; i < 5; i++) expect(code(await guess())).toBe('UNAUTHENTICATED');
    expect(code(await guess())).toBe('RATE_LIMITED');
    expect(logins()).toHaveLength(14 + 1 + 5);
  });

  it('attempts sent at once cannot skip the delays: of 12 in parallel, at most the 5 free ones and one more reach the upstream', async () => {
    const { gateway, logins } = await setup();
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => login(gateway, STRANGER, 'victim@example.test', `guess-${i}`)));
    const reached = logins().length;
    console.info(`12 guesses at once: ${reached} reached the upstream`);
    // Five free; a sixth only if it was sent before the fifth came back (one at a time past the free ones).
    expect(reached).toBeGreaterThanOrEqual(5);
    expect(reached).toBeLessThanOrEqual(6);
    expect(answers.filter((answer) => code(answer) === 'UNAUTHENTICATED')).toHaveLength(reached);
    expect(answers.filter((answer) => code(answer) === 'RATE_LIMITED')).toHaveLength(12 - reached);
  });

  it('variants of a username count as one (case, fullwidth, zero-width space, soft hyphen, BOM, a trailing dot); the upstream gets the username as typed', async () => {
    const { gateway, logins } = await setup();
    const variants = [
      'victim@example.test',
      'VICTIM@example.test',
      'ｖｉｃｔｉｍ@example.test',
      'vic\u200btim@example.test',
      'vic\u00adtim@example.test',
      '\ufeffvictim@example.test',
      'victim@example.test.',
      ' victim@example.test ',
    ];
    const codes: string[] = [];
    for (const variant of variants)
      for (let i = 0; i < 2; i++) codes.push(code(await login(gateway, STRANGER, variant, 'wrong')) as string);
    console.info(
      `${variants.length * 2} guesses under ${variants.length} variants of one username: ${logins().length} reached the upstream`,
    );
    expect(codes).toEqual([...Array(5).fill('UNAUTHENTICATED'), ...Array(variants.length * 2 - 5).fill('RATE_LIMITED')]);
    expect(logins().map((request) => (JSON.parse(request.body) as { username: string }).username)).toEqual([
      'victim@example.test',
      'victim@example.test',
      'VICTIM@example.test',
      'VICTIM@example.test',
      'ｖｉｃｔｉｍ@example.test',
    ]);
  });

  it('per username from all addresses: a ceiling (100) only many addresses reach; past it everyone waits for the window', async () => {
    const { gateway, logins } = await setup();
    const codes: string[] = [];
    // 21 addresses, each within its own five free failures: the 21st finds the ceiling reached.
    for (let a = 1; a <= 21; a++)
      for (let i = 0; i < 5; i++) codes.push(code(await login(gateway, `192.0.2.${a}`, 'victim@example.test', 'wrong')) as string);
    expect(codes.slice(0, 100)).toEqual(Array(100).fill('UNAUTHENTICATED'));
    expect(codes.slice(100)).toEqual(Array(5).fill('RATE_LIMITED'));
    expect(logins()).toHaveLength(100);
    const owner = await login(gateway, OWNER, 'victim@example.test', 'right');
    expect(code(owner)).toBe('RATE_LIMITED');
    expect(retryAfter(owner)).toBeGreaterThan(30);
    expect(retryAfter(owner)).toBeLessThanOrEqual(900);
    // Another customer is not affected.
    expect(code(await login(gateway, `192.0.2.1`, 'someone@example.test', 'right'))).toBe('OK');
  });
});

describe('failed token refreshes', () => {
  it('40 refused refresh tokens from one address: 20 reach the upstream, the rest RATE_LIMITED with retryAfterSeconds', async () => {
    const { gateway, refreshes } = await setup();
    const answers: Answer[] = [];
    for (let i = 0; i < 40; i++) answers.push(await refresh(gateway, STRANGER, `spent-${i}`));
    console.info(`40 refused refresh tokens from one address: ${refreshes().length} upstream calls`);
    expect(answers.slice(0, 20).map(code)).toEqual(Array(20).fill('UNAUTHENTICATED'));
    expect(answers.slice(20).map(code)).toEqual(Array(20).fill('RATE_LIMITED'));
    expect(retryAfter(answers[20]!)).toBeGreaterThan(800);
    expect(retryAfter(answers[20]!)).toBeLessThanOrEqual(900);
    expect(refreshes()).toHaveLength(20);
    // Another address is not affected.
    expect(code(await refresh(gateway, OWNER, 'good-1'))).toBe('OK');
  });

  it('one refused token from many addresses: 5 reach the upstream (400 invalid_grant counts as 401 does)', async () => {
    const { gateway, refreshes } = await setup();
    const codes: string[] = [];
    for (let a = 1; a <= 8; a++) codes.push(code(await refresh(gateway, `192.0.2.${a}`, 'grant-stolen')) as string);
    console.info(`one refused refresh token from 8 addresses: ${refreshes().length} upstream calls`);
    expect(codes).toEqual([...Array(5).fill('BAD_USER_INPUT'), ...Array(3).fill('RATE_LIMITED')]);
    expect(refreshes()).toHaveLength(5);
  });

  it('successful refreshes cost nothing: 30 of them between 19 refused ones, all answered', async () => {
    const { gateway, refreshes } = await setup();
    for (let i = 0; i < 19; i++) expect(code(await refresh(gateway, OWNER, `spent-${i}`))).toBe('UNAUTHENTICATED');
    for (let i = 0; i < 30; i++) expect(code(await refresh(gateway, OWNER, `good-${i}`))).toBe('OK');
    expect(code(await refresh(gateway, OWNER, 'spent-last'))).toBe('UNAUTHENTICATED');
    expect(refreshes()).toHaveLength(50);
    // Past the address's limit, its refreshes wait, good ones too: the limit is the address's.
    expect(code(await refresh(gateway, OWNER, 'good-late'))).toBe('RATE_LIMITED');
    expect(refreshes()).toHaveLength(50);
  });
});
