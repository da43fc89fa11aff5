// Subscriptions whose events each run with a context of their own (the graph's forEvent).
import { execute } from '@graphql-tools/executor';
import { isAsyncIterable, mapAsyncIterator } from '@graphql-tools/utils';
import { createSourceEventStream, type ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Executes each event of a subscription with the context `forEvent` makes from the
 * subscribing request's and the event. The executor yoga uses gives every event the one
 * context of the subscribing request, so a per-event scope (the event's budget and deadline,
 * loaders of its own) could only be had by overwriting that context; this is the GraphQL
 * spec's MapSourceToResponseEvent with the context as an argument of each event's execution.
 */
export function useEventContexts<TContext>(forEvent: (context: TContext, event: unknown) => TContext): Plugin {
  const subscribe = async (args: ExecutionArgs) => {
    const events = await createSourceEventStream(args);
    if (!isAsyncIterable(events)) return events;
    return mapAsyncIterator(events, (event) =>
      execute({ ...args, rootValue: event, contextValue: forEvent(args.contextValue as TContext, event) }),
    );
  };
  return {
    onSubscribe({ setSubscribeFn }) {
      setSubscribeFn(subscribe as Parameters<typeof setSubscribeFn>[0]);
    },
  };
}
