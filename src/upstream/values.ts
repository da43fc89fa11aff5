// How upstream values are read: shared by the operations (is the body what the contract
// promises?) and the resolvers (what the client sees), so both agree on what is readable.

/** An exact decimal as text: digits, an optional sign and an optional fraction. */
export const DECIMAL = /^-?\d+(\.\d+)?$/;

// The longest amount or date-time read as text: far past any price (a JSON number prints in at
// most 22 characters) or ISO 8601 date-time (about 30); a longer text is no such value, and is
// never copied into an answer.
const LONGEST_DECIMAL = 40;
const LONGEST_DATE_TIME = 64;

/**
 * Whether a value is an amount toDecimal reads: a finite JSON number printed without an
 * exponent, or a decimal text. It builds nothing, so a body's every amount is checked for free.
 */
export function isAmount(value: unknown): value is number | string {
  if (typeof value === 'number') return Number.isFinite(value) && DECIMAL.test(String(value));
  // 1e21 and above, or below 1e-6, print in exponent form: neither is a price.
  return typeof value === 'string' && value.length <= LONGEST_DECIMAL && DECIMAL.test(value.trim());
}

/**
 * An upstream amount as an exact decimal string with at least two decimals: 68999 → "68999.00",
 * 12.5 → "12.50", "4156.255" stays. A JSON number is read through its shortest round-trip
 * form, so no float arithmetic ever touches it.
 */
export function toDecimal(value: unknown): string | null {
  if (!isAmount(value)) return null;
  const text = typeof value === 'number' ? String(value) : value.trim();
  const dot = text.indexOf('.');
  // Two decimals or more: the text as it is; one: a zero more; none: ".00". Nothing split.
  return dot === -1 ? `${text}.00` : text.length - dot > 2 ? text : `${text}0`;
}

/** An upstream expiry in epoch seconds, or milliseconds when above 1e12, as ISO 8601 UTC. */
export function epochToDateTime(value: unknown): string | null {
  const epoch = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;
  if (typeof epoch !== 'number' || !Number.isFinite(epoch) || epoch < 0) return null;
  const date = new Date(epoch > 1e12 ? epoch : epoch * 1000);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

// A date-time as toISOString writes one: UTC, to the millisecond. The upstream sends its times so.
const ISO_UTC = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number the `count` digits at `at` write. */
function digitsAt(text: string, at: number, count: number): number {
  let number = 0;
  for (let i = at; i < at + count; i++) number = number * 10 + text.charCodeAt(i) - 48;
  return number;
}

/**
 * Whether a date-time is already what toISOString would write for it: in its form, on a day its
 * month has (Date.parse takes February 30th, and toISOString would write March 2nd).
 */
function isIsoUtc(value: string): boolean {
  if (value.length !== 24 || !ISO_UTC.test(value)) return false;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 2);
  const day = digitsAt(value, 8, 2);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && !leap ? 28 : DAYS_IN_MONTH[month - 1]!);
}

/** Whether Date.parse reads a text of a date-time's length. */
const parses = (value: string) => value !== '' && value.length <= LONGEST_DATE_TIME && !Number.isNaN(Date.parse(value));

/**
 * Whether a value is a date-time toIsoDateTime reads; it builds nothing (no Date, no text, not
 * even Date.parse's number for one already as toISOString writes it).
 */
export const isDateTime = (value: unknown): value is string => typeof value === 'string' && (isIsoUtc(value) || parses(value));

/**
 * An upstream date-time (a string Date.parse reads, ISO 8601 for one) as ISO 8601 UTC. One that
 * is already so is answered as it is: a resolver runs this for every date-time of an answer,
 * and a Date and its text for each would be built only to write the same characters.
 */
export function toIsoDateTime(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (isIsoUtc(value)) return value;
  return parses(value) ? new Date(Date.parse(value)).toISOString() : null;
}
