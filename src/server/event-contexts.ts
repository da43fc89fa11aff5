// Subscriptions whose events each run with a context of their own (the graph's forEvent).
import { execute } from '@graphql-tools/executor';
import { isAsyncIterable, mapAsyncIterator } from '@graphql-tools/utils';
import { createSourceEventStream, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { CallScope } from '../upstream/scope.js';
import { answerWithin } from './held-bytes.js';

/**
 * Executes each event of a subscription with the context `forEvent` makes from the
 * subscribing request's and the event. The executor yoga uses gives every event the one
 * context of the subscribing request, so a per-event scope (the event's budget and deadline,
 * loaders of its own) could only be had by overwriting that context; this is the GraphQL
 * spec's MapSourceToResponseEvent with the context as an argument of each event's execution.
 * Each event's scope has a byte budget of its own: its answer is counted in it, and it is given
 * back once the event is answered.
 */
export function useEventContexts<TContext extends { scope: CallScope }>(forEvent: (context: TContext, event: unknown) => TContext): Plugin {
  const subscribe = async (args: ExecutionArgs) => {
    const events = await createSourceEventStream(args);
    if (!isAsyncIterable(events)) return events;
    return mapAsyncIterator(events, async (event) => {
      const contextValue = forEvent(args.contextValue as TContext, event);
      try {
        return answerWithin(contextValue.scope.bytes, (await execute({ ...args, rootValue: event, contextValue })) as ExecutionResult, {
          event: true,
        });
      } finally {
        contextValue.scope.bytes.release();
      }
    });
  };
  return {
    onSubscribe({ setSubscribeFn }) {
      setSubscribeFn(subscribe as Parameters<typeof setSubscribeFn>[0]);
    },
  };
}
