// Several plugins' hooks of one phase run as one hook: yoga, its server adapter and envelop call
// every hook of a phase with an object of its own (closures, and promise helpers around each
// call), so each hook costs every request a few hundred bytes whether or not it does anything.
import { isPromise, type Plugin } from 'graphql-yoga';

/** The phases merged here: each runs on every request, and none of their hooks keeps its own payload. */
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
    const shared: Payload<'onRequest'> = {
      ...payload,
      setRequest(request) {
        payload.setRequest(request);
        shared.request = request;
      },
      setRequestHandler(handler) {
        payload.setRequestHandler(handler);
        shared.requestHandler = handler;
      },
      endResponse(response) {
        payload.endResponse(response);
        if (response) ended = true;
      },
    };
    return inTurn(
      hooks,
      (hook) => hook(shared),
      () => ended,
    ) as ReturnType<Hook<'onRequest'>>;
  };
}

/** Yoga's: the parser set is the next hook's, an ended response ends the phase, and each hook's onRequestParseDone runs in turn. */
function onRequestParse(hooks: Hook<'onRequestParse'>[]): Hook<'onRequestParse'> {
  type Done = NonNullable<ResultOf<Hook<'onRequestParse'>>['onRequestParseDone']>;
  return (payload) => {
    let ended = false;
    const dones: Done[] = [];
    const shared: Payload<'onRequestParse'> = {
      ...payload,
      setRequestParser(parser) {
        payload.setRequestParser(parser);
        shared.requestParser = parser;
      },
      endResponse(response) {
        payload.endResponse(response);
        ended = true;
      },
    };
    const call = (hook: Hook<'onRequestParse'>) => {
      const result = hook(shared);
      return isPromise(result) ? result.then((value) => value?.onRequestParseDone) : result?.onRequestParseDone;
    };
    const done = () => {
      if (dones.length === 0) return undefined;
      return {
        onRequestParseDone(donePayload: PayloadOf<Done>) {
          const sharedDone: PayloadOf<Done> = {
            ...donePayload,
            setRequestParserResult(result) {
              donePayload.setRequestParserResult(result);
              sharedDone.requestParserResult = result;
            },
          };
          return inTurn(
            dones,
            (hook) => hook(sharedDone),
            () => false,
          ) as ReturnType<Done>;
        },
      };
    };
    const running = inTurn(hooks, call, () => ended, dones);
    return (isPromise(running) ? running.then(done) : done()) as ReturnType<Hook<'onRequestParse'>>;
  };
}

/** Yoga's: the result and its processor set are the next hook's. */
function onResultProcess(hooks: Hook<'onResultProcess'>[]): Hook<'onResultProcess'> {
  return (payload) => {
    const shared: Payload<'onResultProcess'> = {
      ...payload,
      setResult(result) {
        payload.setResult(result);
        shared.result = result;
      },
      setResultProcessor(processor, acceptedMediaType) {
        payload.setResultProcessor(processor, acceptedMediaType);
        shared.resultProcessor = processor;
      },
    };
    return inTurn(
      hooks,
      (hook) => hook(shared),
      () => false,
    ) as ReturnType<Hook<'onResultProcess'>>;
  };
}

/** The server adapter's: the response set is the next hook's. */
function onResponse(hooks: Hook<'onResponse'>[]): Hook<'onResponse'> {
  return (payload) => {
    const shared: Payload<'onResponse'> = {
      ...payload,
      setResponse(response) {
        payload.setResponse(response);
        shared.response = response;
      },
    };
    return inTurn(
      hooks,
      (hook) => hook(shared),
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
            const shared: NextPayload = {
              ...payload,
              setResult(result) {
                payload.setResult(result);
                shared.result = result;
              },
            };
            return inTurn(
              nexts,
              (hook) => hook(shared),
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
        const shared: ExecuteDonePayload = {
          ...payload,
          setResult(result) {
            payload.setResult(result);
            shared.result = result;
          },
        };
        const running = inTurn(
          dones,
          (hook) => hook(shared),
          () => false,
          returned,
        );
        return (isPromise(running) ? running.then(() => streamHooks(returned)) : streamHooks(returned)) as ReturnType<ExecuteDone>;
      },
    };
  };
  return (payload) => {
    let stopped = false;
    const after: { onExecuteDone?: ExecuteDone }[] = [];
    const shared: Payload<'onExecute'> = {
      ...payload,
      setExecuteFn(executeFn) {
        payload.setExecuteFn(executeFn);
        shared.executeFn = executeFn;
      },
      setResultAndStopExecution(result) {
        payload.setResultAndStopExecution(result);
        stopped = true;
      },
    };
    const running = inTurn(
      hooks,
      (hook) => hook(shared),
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
