// Which cards an order has: a card per stage-gated part its `Order.availability` lists (one
// entry per OrderPart), then one per other object or list the page's query selects on it. None
// is written per part: a part added to the query, with a stage or without, gets its card.
import { AVAILABLE_FROM } from '@order-graph/client';
import { fieldWords } from './format';
import { ORDER_SELECTION, SHOWN_ELSEWHERE, type SelectedField } from './query';

/** One entry of `Order.availability`: a stage-gated part, the stage it comes from, whether the order is there. */
export interface Gate {
  part: string;
  from: string;
  available: boolean;
}

/** A card of the order: the field it shows, its title, its stage when it has one, whether the query selects it. */
export interface Card {
  field: string;
  title: string;
  gate?: Gate;
  selected: boolean;
}

/**
 * The Order field an OrderPart names: the SDK's stage-bound field whose upper case the part is
 * (VEHICLE: vehicle), else, for a part newer than this build of the page, the part's words in
 * camel case (DELIVERY_WINDOW: deliveryWindow).
 */
export function partField(part: string): string {
  const known = Object.keys(AVAILABLE_FROM).find((field) => field.toUpperCase() === part);
  return known ?? part.toLowerCase().replace(/_([a-z\d])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * The order's cards: each stage-gated part in the API's order (one the query does not select
 * too, which the page then says it does not show), then each other object or list the query
 * selects, in the query's order.
 */
export function orderCards(availability: readonly Gate[], selection: readonly SelectedField[] = ORDER_SELECTION): Card[] {
  const selected = new Set(selection.filter((field) => field.fields).map((field) => field.name));
  const gated = availability.map((gate) => ({ field: partField(gate.part), gate }));
  const gatedFields = new Set(gated.map(({ field }) => field));
  const others = [...selected].filter((field) => !gatedFields.has(field) && !SHOWN_ELSEWHERE.includes(field)).map((field) => ({ field }));
  return [...gated, ...others].map((card) => ({ ...card, title: fieldWords(card.field), selected: selected.has(card.field) }));
}
