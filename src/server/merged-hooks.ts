// Several plugins' hooks of one phase run as one hook: yoga, its server adapter and envelop call
// every hook of a phase with an object of its own and promise helpers around each call (about
// 1 kB a hook), so each hook costs every request that whether or not it does anything. Merged,
// each hook is shown a payload holding what the hooks before it set, and a payload once shown
// is never changed: a hook may read its payload later (the response cache's executor reads
// `executeFn` when it runs). A hook that sets something makes the next hook's payload a new one.
import { isPromise, type Plugin } from 'graphql-yoga';

/** The phases merged here: each runs on every request. */
const MERGED = ['onRequest', 'onRequestParse', 'onExecute', 'onResultProcess', 'onResponse'] as const;
type Merged = (typeof MERGED)[number];

type Hook<K extends Merged> = NonNullable<Plugin[K]>;
type PayloadOf<H> = H extends (payload: infer P) => unknown ? P : never;
/** What a hook returns that is not nothing, once its promise (if any) settled. */
type ResultOf<H> = H extends (payload: never) => infer R ? Exclude<Awaited<R>, void | undefined> : never;
type Payload<K extends Merged> = PayloadOf<Hook<K>>;

/**
 * Calls each hook in turn as the frameworks do: a hook's promise is waited for before the next,
 * a truthy result kept in `results`, and no further hook is called once `stopped()` says so.
 */
function inTurn<H>(hooks: readonly H[], call: (hook: H) => unknown, stopped: () => boolean, results?: unknown[], from = 0): unknown {
  for (let i = from; i < hooks.length; i++) {
    const result = call(hooks[i]!);
    if (isPromise(result))
      return result.then((value) => {
        if (value) results?.push(value);
        return stopped() ? undefined : inTurn(hooks, call, stopped, results, i + 1);
      });
    if (result) results?.push(result);
    if (stopped()) return undefined;
  }
  return undefined;
}

/** The server adapter's: a hook that ends the response ends the phase; a request or handler set is the next hook's. */
function onRequest(hooks: Hook<'onRequest'>[]): Hook<'onRequest'> {
  return (payload) => {
    let ended = false;
    let { request, requestHandler } = payload;
    // The adapter's `url` parses the request's URL on each read until it is replaced, which a
    // payload made here would not see: parsed once, when the first hook is called.
    let url: URL | undefined;
    let shown: Payload<'onRequest'> | undefined;
    const setRequest = (next: Request) => {
      payload.setRequest(next);
      if (next.url !== request.url) url = undefined;
      request = next;
      shown = undefined;
    };
    const setRequestHandler: Payload<'onRequest'>['setRequestHandler'] = (handler) => {
      payload.setRequestHandler(handler);
      requestHandler = handler;
      shown = undefined;
    };
    const endResponse = (response: Response) => {
      payload.endResponse(response);
      if (response) ended = true;
    };
    return inTurn(
      hooks,
      (hook) =>
        hook(
          (shown ??= {
            ...payload,
            request,
            requestHandler,
            url: (url ??= new payload.fetchAPI.URL(request.url, 'http://localhost')),
            setRequest,
            setRequestHandler,
            endResponse,
          }),
        ),
      () => ended,
    ) as ReturnType<Hook<'onRequest'>>;
  };
}

/** Yoga's: the parser set is the next hook's, an ended response ends the phase, and each hook's onRequestParseDone runs in turn. */
function onRequestParse(hooks: Hook<'onRequestParse'>[]): Hook<'onRequestParse'> {
  type Done = NonNullable<ResultOf<Hook<'onRequestParse'>>['onRequestParseDone']>;
  const allDone = (dones: Done[]) => ({
    onRequestParseDone(donePayload: PayloadOf<Done>) {
      let { requestParserResult } = donePayload;
      let shown: PayloadOf<Done> | undefined;
      const setRequestParserResult: PayloadOf<Done>['setRequestParserResult'] = (result) => {
        donePayload.setRequestParserResult(result);
        requestParserResult = result;
        shown = undefined;
      };
      return inTurn(
        dones,
        (hook) => hook((shown ??= { ...donePayload, requestParserResult, setRequestParserResult })),
        () => false,
      ) as ReturnType<Done>;
    },
  });
  return (payload) => {
    let ended = false;
    let { requestParser } = payload;
    let shown: Payload<'onRequestParse'> | undefined;
    const dones: Done[] = [];
    const setRequestParser: Payload<'onRequestParse'>['setRequestParser'] = (parser) => {
      payload.setRequestParser(parser);
      requestParser = parser;
      shown = undefined;
    };
    const endResponse = (response: Response) => {
      payload.endResponse(response);
      ended = true;
    };
    const call = (hook: Hook<'onRequestParse'>) => {
      const result = hook((shown ??= { ...payload, requestParser, setRequestParser, endResponse }));
      return isPromise(result) ? result.then((value) => value?.onRequestParseDone) : result?.onRequestParseDone;
    };
    const done = () => (dones.length === 0 ? undefined : allDone(dones));
    const running = inTurn(hooks, call, () => ended, dones);
    return (isPromise(running) ? running.then(done) : done()) as ReturnType<Hook<'onRequestParse'>>;
  };
}

/** Yoga's: the result and its processor set are the next hook's. */
function onResultProcess(hooks: Hook<'onResultProcess'>[]): Hook<'onResultProcess'> {
  return (payload) => {
    let { result, resultProcessor } = payload;
    let shown: Payload<'onResultProcess'> | undefined;
    const setResult: Payload<'onResultProcess'>['setResult'] = (next) => {
      payload.setResult(next);
      result = next;
      shown = undefined;
    };
    const setResultProcessor: Payload<'onResultProcess'>['setResultProcessor'] = (processor, acceptedMediaType) => {
      payload.setResultProcessor(processor, acceptedMediaType);
      resultProcessor = processor;
      shown = undefined;
    };
    return inTurn(
      hooks,
      (hook) => hook((shown ??= { ...payload, result, resultProcessor, setResult, setResultProcessor })),
      () => false,
    ) as ReturnType<Hook<'onResultProcess'>>;
  };
}

/** The server adapter's: the response set is the next hook's. */
function onResponse(hooks: Hook<'onResponse'>[]): Hook<'onResponse'> {
  return (payload) => {
    let { response } = payload;
    let shown: Payload<'onResponse'> | undefined;
    const setResponse = (next: Response) => {
      payload.setResponse(next);
      response = next;
      shown = undefined;
    };
    return inTurn(
      hooks,
      (hook) => hook((shown ??= { ...payload, response, setResponse })),
      () => false,
    ) as ReturnType<Hook<'onResponse'>>;
  };
}

type ExecuteDone = NonNullable<ResultOf<Hook<'onExecute'>>['onExecuteDone']>;
type ExecuteDonePayload = PayloadOf<ExecuteDone>;
type StreamHooks = ResultOf<ExecuteDone>;
type NextPayload = PayloadOf<NonNullable<StreamHooks['onNext']>>;

/** What several onExecuteDone returned for a streamed result, as one: each onNext and onEnd in turn. */
function streamHooks(returned: StreamHooks[]): StreamHooks | undefined {
  const nexts = returned.flatMap(({ onNext }) => (onNext ? [onNext] : []));
  const ends = returned.flatMap(({ onEnd }) => (onEnd ? [onEnd] : []));
  if (nexts.length === 0 && ends.length === 0) return undefined;
  return {
    onNext:
      nexts.length === 0
        ? undefined
        : (payload: NextPayload) => {
            let { result } = payload;
            let shown: NextPayload | undefined;
            const setResult: NextPayload['setResult'] = (next) => {
              payload.setResult(next);
              result = next;
              shown = undefined;
            };
            return inTurn(
              nexts,
              (hook) => hook((shown ??= { ...payload, result, setResult })),
              () => false,
            ) as void | Promise<void>;
          },
    onEnd: ends.length === 0 ? undefined : () => ends.forEach((end) => end()),
  };
}

/** Envelop's: the executor set is the next hook's, a result set stops the phase, and each hook's onExecuteDone runs in turn. */
function onExecute(hooks: Hook<'onExecute'>[]): Hook<'onExecute'> {
  const done = (after: { onExecuteDone?: ExecuteDone }[]) => {
    const dones = after.flatMap(({ onExecuteDone }) => (onExecuteDone ? [onExecuteDone] : []));
    if (dones.length === 0) return undefined;
    return {
      onExecuteDone(payload: ExecuteDonePayload) {
        const returned: StreamHooks[] = [];
        let { result } = payload;
        let shown: ExecuteDonePayload | undefined;
        const setResult: ExecuteDonePayload['setResult'] = (next) => {
          payload.setResult(next);
          result = next;
          shown = undefined;
        };
        const running = inTurn(
          dones,
          (hook) => hook((shown ??= { ...payload, result, setResult })),
          () => false,
          returned,
        );
        return (isPromise(running) ? running.then(() => streamHooks(returned)) : streamHooks(returned)) as ReturnType<ExecuteDone>;
      },
    };
  };
  return (payload) => {
    let stopped = false;
    let { executeFn } = payload;
    let shown: Payload<'onExecute'> | undefined;
    const after: { onExecuteDone?: ExecuteDone }[] = [];
    const setExecuteFn: Payload<'onExecute'>['setExecuteFn'] = (next) => {
      payload.setExecuteFn(next);
      executeFn = next;
      shown = undefined;
    };
    const setResultAndStopExecution: Payload<'onExecute'>['setResultAndStopExecution'] = (result) => {
      payload.setResultAndStopExecution(result);
      stopped = true;
    };
    const running = inTurn(
      hooks,
      (hook) => hook((shown ??= { ...payload, executeFn, setExecuteFn, setResultAndStopExecution })),
      () => stopped,
      after,
    );
    return (isPromise(running) ? running.then(() => done(after)) : done(after)) as ReturnType<Hook<'onExecute'>>;
  };
}

const MERGERS: { [K in Merged]: (hooks: Hook<K>[]) => Hook<K> } = { onRequest, onRequestParse, onExecute, onResultProcess, onResponse };

/**
 * The plugins, in the order given, as one plugin holding one hook for each phase of MERGED that
 * several of them hook (called in their order, as the frameworks would call them apart), then
 * each plugin with its other hooks, in order. The phases are each their own sequence, so their
 * order among the plugins, and against every plugin before and after these, is the same.
 */
export function mergeHooks<P extends object>(plugins: readonly P[]): P[] {
  const merged: Record<string, unknown> = {};
  const rest = plugins.map((plugin) => ({ ...plugin }) as Record<string, unknown>);
  for (const phase of MERGED) {
    const holders = rest.filter((plugin) => plugin[phase] !== undefined);
    if (holders.length < 2) continue;
    const hooks = holders.map((plugin) => plugin[phase]);
    for (const plugin of holders) delete plugin[phase];
    merged[phase] = (MERGERS[phase] as (hooks: unknown[]) => unknown)(hooks);
  }
  return [merged, ...rest.filter((plugin) => Reflect.ownKeys(plugin).length > 0)] as P[];
}

/**
 * Every plugin of the yoga it is given to, yoga's own included (its health check, CORS, request
 * parsers, request checks, result processors, error masking), merged by mergeHooks once each
 * plugin's onPluginInit has run: a request then pays for one hook per merged phase instead of
 * one for each plugin in it. Envelop calls each onPluginInit in turn over the very list it then
 * takes each phase's hooks from, as do yoga and its server adapter; a plugin pushed onto that
 * list is called last, with every plugin (and every plugin they added) in it.
 */
export function useMergedPhases(): Plugin {
  return {
    onPluginInit({ plugins }) {
      plugins.push({
        onPluginInit({ plugins: all }) {
          // Each onPluginInit has run (this one last): none runs again.
          const merged = mergeHooks(all.map(({ onPluginInit: _ran, ...hooks }: Plugin) => hooks));
          all.splice(0, all.length, ...merged);
        },
      });
    },
  };
}
