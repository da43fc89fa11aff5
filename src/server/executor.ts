// Which executor runs an operation: graphql-jit for plain queries and mutations, the standard one for streams.
import { useGraphQlJit } from '@envelop/graphql-jit';
import { BREAK, getOperationAST, visit, type DocumentNode, type ExecutionArgs } from 'graphql';
import type { CompilerOptions } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';

/**
 * How graphql-jit compiles a document. Leaves are written as the resolvers and parents give
 * them, not passed through their type's `serialize` (each such call cost about 0.15 kB per leaf
 * of every answer): every value already is what its type writes. The upstream shapes hold each
 * leaf to its kind (models.ts), custom scalars (DateTime, Date, Decimal) are still serialized,
 * and a field of an enum with UNKNOWN maps its value in its resolver (graph/enums.ts).
 */
export const JIT_OPTIONS: Partial<CompilerOptions> = { disableLeafSerialization: true };

// Documents with incremental delivery, by parsed document (yoga caches those).
const incremental = new WeakMap<DocumentNode, boolean>();

/** Whether the document asks for incremental delivery (@defer or @stream anywhere in it). */
export function usesDeferOrStream(document: DocumentNode): boolean {
  let found = incremental.get(document);
  if (found === undefined) {
    found = false;
    visit(document, {
      Directive(node) {
        if (node.name.value !== 'defer' && node.name.value !== 'stream') return;
        found = true;
        return BREAK;
      },
    });
    incremental.set(document, found);
  }
  return found;
}

/**
 * graphql-jit compiles queries and mutations whose document `worthCompiling` (the
 * document cache's judgement); subscriptions and @defer/@stream take the standard executor.
 * Both answer in the selection order (test/integration/selection-order.test.ts): a client
 * sees the same JSON whichever ran.
 */
export function useJitWhereItPays(worthCompiling: (args: ExecutionArgs) => boolean): Plugin {
  return useGraphQlJit(JIT_OPTIONS, {
    enableIf: (args) =>
      getOperationAST(args.document, args.operationName)?.operation !== 'subscription' &&
      !usesDeferOrStream(args.document) &&
      worthCompiling(args),
  }) as Plugin;
}
