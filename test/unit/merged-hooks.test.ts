// Plugins whose hooks of a phase run as one (src/server/merged-hooks.ts) are called as yoga calls them apart: the same hooks in the same order with what the ones before set, the same early ends, the same answers.
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { mergeHooks, useMergedPhases } from '../../src/server/merged-hooks.js';

const schema = createSchema({
  typeDefs: 'type Query { hello: String, slow: String }',
  resolvers: { Query: { hello: () => 'world', slow: async () => 'later' } },
});

/** Three plugins that record every call, each reading what the others set, and stopping where a request asks them to. */
function recorded(log: string[]): Plugin[] {
  const a: Plugin = {
    onRequest: ({ url }) => void log.push(`a.onRequest ${url.pathname}`),
    onRequestParse: ({ setRequestParser, requestParser }) => {
      log.push(`a.onRequestParse parser=${requestParser?.name}`);
      if (!requestParser) return;
      setRequestParser(async function aParser(request) {
        log.push('a.parser');
        return requestParser(request);
      });
      return {
        onRequestParseDone: ({ requestParserResult }) => void log.push(`a.parseDone ${JSON.stringify(requestParserResult).length > 0}`),
      };
    },
    onExecute: ({ args }) => {
      log.push(`a.onExecute ${String(args.operationName)}`);
      return {
        onExecuteDone: ({ result, setResult }) => {
          log.push('a.onExecuteDone');
          if (!(Symbol.asyncIterator in result)) return setResult({ ...result, extensions: { a: true } });
          return {
            onNext: ({ result: next }) => void log.push(`a.onNext ${'hasNext' in next ? String(next.hasNext) : '-'}`),
            onEnd: () => void log.push('a.onEnd'),
          };
        },
      };
    },
    onResultProcess: ({ result }) => void log.push(`a.onResultProcess ${JSON.stringify(result).slice(0, 40)}`),
    onResponse: ({ response, setResponse }) => {
      log.push(`a.onResponse ${response.status}`);
      const headers = new Headers(response.headers);
      headers.set('x-a', '1');
      setResponse(new Response(response.body, { status: response.status, headers }));
    },
  };
  const b: Plugin = {
    // Waited for: the next plugin runs after it.
    onRequest: async ({ url, endResponse }) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.push(`b.onRequest ${url.pathname}`);
      if (url.pathname === '/stop') endResponse(new Response('stopped by b', { status: 418 }));
    },
    onRequestParse: ({ requestParser }) => void log.push(`b.onRequestParse parser=${requestParser?.name}`),
    onExecute: ({ args, setResultAndStopExecution }) => {
      log.push('b.onExecute');
      if ((args.variableValues as { stop?: boolean } | undefined)?.stop) setResultAndStopExecution({ data: { hello: 'refused by b' } });
      return { onExecuteDone: () => void log.push('b.onExecuteDone') };
    },
    onResponse: ({ response }) => void log.push(`b.onResponse ${response.headers.get('x-a')}`),
  };
  const c: Plugin = {
    onRequest: () => void log.push('c.onRequest'),
    onExecute: ({ executeFn }) => void log.push(`c.onExecute ${executeFn.name || 'anonymous'}`),
    onResultProcess: async ({ result }) => {
      await Promise.resolve();
      log.push(`c.onResultProcess ${JSON.stringify(result).slice(0, 40)}`);
    },
    onResponse: () => void log.push('c.onResponse'),
  };
  return [a, b, c];
}

/** The log and the answer of one request to a yoga with the recording plugins, merged or not. */
async function run(merged: boolean, path: string, body: unknown, accept = 'application/json') {
  const log: string[] = [];
  const plugins = recorded(log);
  const yoga = createYoga({
    schema,
    graphqlEndpoint: '/graphql',
    plugins: [...(merged ? mergeHooks(plugins) : plugins), useDeferStream()],
  });
  const response = await yoga.fetch(`http://localhost${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify(body),
  });
  return { log, status: response.status, headerA: response.headers.get('x-a'), text: await response.text() };
}

describe('mergeHooks', () => {
  it('makes one plugin of the merged phases, and keeps each plugin with its other hooks', () => {
    const plugins = recorded([]);
    const [merged, ...rest] = mergeHooks([...plugins, { onValidate: () => undefined }, { onRequest: () => undefined }]);
    expect(Object.keys(merged!).sort()).toEqual(['onExecute', 'onRequest', 'onRequestParse', 'onResponse', 'onResultProcess']);
    expect(rest.map((plugin) => Object.keys(plugin))).toEqual([['onValidate']]);
    // A phase only one of them hooks stays with its plugin.
    const [one, ...others] = mergeHooks([{ onRequest: plugins[0]!.onRequest, onParse: () => undefined }, { onParams: () => undefined }]);
    expect(one).toEqual({});
    expect(others.map((plugin) => Object.keys(plugin).sort())).toEqual([['onParse', 'onRequest'], ['onParams']]);
  });

  it.each([
    ['a query', '/graphql', { query: '{ hello }' }],
    [
      'a query stopped before it runs',
      '/graphql',
      { query: 'query Q($stop: Boolean = false) { hello @skip(if: $stop) }', operationName: 'Q', variables: { stop: true } },
    ],
    ['a request one plugin answers itself', '/stop', { query: '{ hello }' }],
    ['a request no parser takes', '/graphql', 'not an object'],
  ])('%s: the same calls in the same order, and the same answer', async (_case, path, body) => {
    const apart = await run(false, path, body);
    const together = await run(true, path, body);
    expect(together).toEqual(apart);
    expect(apart.log.length).toBeGreaterThan(3);
  });

  it('a streamed answer: each onExecuteDone, and the onNext and onEnd they return, in turn', async () => {
    const body = { query: '{ hello ... @defer { slow } }' };
    const apart = await run(false, '/graphql', body, 'multipart/mixed');
    const together = await run(true, '/graphql', body, 'multipart/mixed');
    expect(together).toEqual(apart);
    expect(apart.log).toContain('a.onEnd');
    expect(apart.log.filter((line) => line.startsWith('a.onNext')).length).toBeGreaterThan(1);
  });

  it('what each case went through, as apart: the order, the early ends, what a hook set reaching the next', async () => {
    const stopped = await run(true, '/graphql', {
      query: 'query Q($stop: Boolean = false) { hello @skip(if: $stop) }',
      operationName: 'Q',
      variables: { stop: true },
    });
    expect(stopped.log.filter((line) => /onExecute|onRequestParse /.test(line))).toEqual([
      'a.onRequestParse parser=parsePOSTJsonRequest',
      'b.onRequestParse parser=aParser',
      'a.onExecute Q',
      'b.onExecute',
      'a.onExecuteDone',
      'b.onExecuteDone',
    ]);
    expect(stopped.text).toContain('refused by b');
    const early = await run(true, '/stop', { query: '{ hello }' });
    expect(early).toMatchObject({ status: 418, headerA: '1', text: 'stopped by b' });
    expect(early.log).toEqual(['a.onRequest /stop', 'b.onRequest /stop', 'a.onResponse 418', 'b.onResponse 1', 'c.onResponse']);
  });

  it('a hook that reads its payload after it returned (as the response cache does) reads what was set when it was called', async () => {
    const log: string[] = [];
    const lazy: Plugin = {
      onExecute: (payload) => {
        payload.setExecuteFn((args) => {
          log.push('lazy ran');
          return payload.executeFn(args);
        });
      },
    };
    const later: Plugin = {
      onExecute: ({ executeFn, setExecuteFn }) =>
        setExecuteFn((args) => {
          log.push('later ran');
          return executeFn(args);
        }),
    };
    const answers = [];
    for (const plugins of [[lazy, later], mergeHooks([lazy, later])]) {
      const yoga = createYoga({ schema, plugins });
      const response = await yoga.fetch('http://localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ hello }' }),
      });
      answers.push({ status: response.status, text: await response.text(), log: log.splice(0) });
    }
    expect(answers[0]).toEqual({ status: 200, text: '{"data":{"hello":"world"}}', log: ['later ran', 'lazy ran'] });
    expect(answers[1]).toEqual(answers[0]);
  });
});

describe('useMergedPhases', () => {
  /** A yoga as the gateway has one: CORS, a refusal of its own, a health check, every parser and check of yoga's. */
  const served = (merged: boolean, log: string[]) =>
    createYoga({
      schema,
      cors: (request) => (request.headers.get('origin') === 'https://shop.example' ? { origin: ['https://shop.example'] } : false),
      plugins: [
        ...(merged ? [useMergedPhases()] : []),
        ...recorded(log),
        { onRequestParse: ({ request }) => void log.push(`d.onRequestParse ${request.method}`) },
        useDeferStream(),
      ],
    });
  const requests: [string, RequestInit][] = [
    ['/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ hello }' }) }],
    ['/graphql?query={hello}', { method: 'GET', headers: { origin: 'https://shop.example' } }],
    ['/graphql?query=mutation{hello}', { method: 'GET' }],
    ['/graphql', { method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } }],
    ['/graphql', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' }],
    ['/health', { method: 'GET' }],
    ['/elsewhere', { method: 'GET' }],
    ['/stop', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ hello }' }) }],
    ['/graphql', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{ hello }' }],
    ['/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ nope }' }) }],
  ];

  it("leaves one hook in each merged phase, yoga's own plugins included", () => {
    const plugins = (served(true, []) as unknown as { plugins: Plugin[] }).plugins;
    for (const phase of ['onRequest', 'onRequestParse', 'onExecute', 'onResultProcess', 'onResponse'] as const)
      expect(plugins.filter((plugin) => plugin[phase]).length, phase).toBe(1);
    expect(plugins.filter((plugin) => plugin.onPluginInit)).toEqual([]);
    // Apart, yoga's own plugins hook these phases several times each.
    const apart = (served(false, []) as unknown as { plugins: Plugin[] }).plugins;
    expect(apart.filter((plugin) => plugin.onRequestParse).length).toBeGreaterThan(5);
  });

  it.each(requests)('%s %o: the same calls in the same order, and the same answer', async (path, init) => {
    const answers = [];
    for (const merged of [false, true]) {
      const log: string[] = [];
      const response = await served(merged, log).fetch(`http://localhost${path}`, init);
      const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== 'date'));
      answers.push({ status: response.status, headers, text: await response.text(), log });
    }
    expect(answers[1]).toEqual(answers[0]);
  });
});
