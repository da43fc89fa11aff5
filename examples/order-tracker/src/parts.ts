// Which stage-gated parts an order has, read from the order itself (`Order.availability`, one
// entry per OrderPart), and how a part the page has no view of its own for is written out.
import { AVAILABLE_FROM } from '@order-graph/client';
import { dateTime, fieldWords, money, words } from './format';

/** One entry of `Order.availability`: a stage-gated part, the stage it comes from, whether the order is there. */
export interface Gate {
  part: string;
  from: string;
  available: boolean;
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

/** The order's stage-gated parts, in the API's order, each with its field and title. */
export function gatedParts(availability: readonly Gate[]): { field: string; title: string; gate: Gate }[] {
  return availability.map((gate) => {
    const field = partField(gate.part);
    return { field, title: fieldWords(field), gate };
  });
}

const isMoney = (value: object): value is { amount: string; currencyCode: string } =>
  typeof (value as { amount?: unknown }).amount === 'string' && typeof (value as { currencyCode?: unknown }).currencyCode === 'string';

/**
 * A value of any shape as labelled lines, for a part with no view of its own: each scalar it
 * holds under its field's name (nested names joined), money in its currency, times in the
 * reader's locale, enum values in words, nothing left out but nulls.
 */
export function fieldLines(value: unknown, label = ''): [label: string, text: string][] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => fieldLines(item, `${label} ${i + 1}`.trim()));
  if (typeof value === 'object') {
    if (isMoney(value)) return [[label, money(value)]];
    return Object.entries(value).flatMap(([key, inner]) =>
      fieldLines(inner, label ? `${label}, ${fieldWords(key).toLowerCase()}` : fieldWords(key)),
    );
  }
  let text = String(value);
  if (typeof value === 'boolean') text = value ? 'Yes' : 'No';
  else if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value)) text = dateTime(value);
  else if (typeof value === 'string' && /^[A-Z][A-Z\d]*(_[A-Z\d]+)+$/.test(value)) text = words(value);
  return [[label || 'Value', text]];
}
