// What the page's query (tracker.graphql) selects on an order, read from its generated document:
// the page makes its cards from it, so a part added to the query gets its card with no other
// change; and the few objects it selects that have a place other than a card.
import { Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
// With its extension: the gateway's tests read this file too.
import { TrackerOrderDocument } from './gql/graphql.js';

/** A field the query selects: its name in the answer (its alias, if any) and, for an object or a list of them, what it selects in turn. */
export interface SelectedField {
  name: string;
  fields: SelectedField[] | null;
}

/** The fields a selection set selects, through its fragments (inline, deferred or named), in the query's order. */
export function selectedFields(document: DocumentNode, set: SelectionSetNode): SelectedField[] {
  const fragments = document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
  return set.selections.flatMap((selection): SelectedField[] => {
    if (selection.kind === Kind.FIELD)
      return [
        {
          name: selection.alias?.value ?? selection.name.value,
          fields: selection.selectionSet ? selectedFields(document, selection.selectionSet) : null,
        },
      ];
    if (selection.kind === Kind.INLINE_FRAGMENT) return selectedFields(document, selection.selectionSet);
    const fragment = fragments.find((f) => f.name.value === selection.name.value);
    return fragment ? selectedFields(document, fragment.selectionSet) : [];
  });
}

/** What a document's operation selects at a path of fields (`['me', 'orders']`: on each order). */
export function selectionAt(document: DocumentNode, path: readonly string[]): SelectedField[] {
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
  let fields = operation ? selectedFields(document, operation.selectionSet) : [];
  for (const name of path) fields = fields.find((field) => field.name === name)?.fields ?? [];
  return fields;
}

/** What a document selects on each order of `me.orders`. */
export const orderSelection = (document: DocumentNode): SelectedField[] => selectionAt(document, ['me', 'orders']);

/** The Order fields the page's query selects. */
export const ORDER_SELECTION = orderSelection(TrackerOrderDocument);

/**
 * The objects and lists the query selects on an order that have a place of their own rather
 * than a card: `availability` says which cards are gated and from when, the product and the
 * configuration are the order card's lines, the history is the timeline.
 */
export const SHOWN_ELSEWHERE: readonly string[] = ['availability', 'product', 'configuration', 'history'];
