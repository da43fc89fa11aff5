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
 * An upstream amount as an exact decimal string with at least two decimals: 68999 → "68999.00",
 * 12.5 → "12.50", "4156.255" stays. A JSON number is read through its shortest round-trip
 * form, so no float arithmetic ever touches it.
 */
export function toDecimal(value: unknown): string | null {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    text = String(value);
    // 1e21 and above, or below 1e-6, print in exponent form: neither is a price.
    if (!DECIMAL.test(text)) return null;
  } else if (typeof value === 'string' && value.length <= LONGEST_DECIMAL && DECIMAL.test(value.trim())) {
    text = value.trim();
  } else {
    return null;
  }
  const [whole, fraction = ''] = text.split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}

/** An upstream expiry in epoch seconds, or milliseconds when above 1e12, as ISO 8601 UTC. */
export function epochToDateTime(value: unknown): string | null {
  const epoch = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;
  if (typeof epoch !== 'number' || !Number.isFinite(epoch) || epoch < 0) return null;
  const date = new Date(epoch > 1e12 ? epoch : epoch * 1000);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** An upstream date-time (a string Date.parse reads, ISO 8601 for one) as ISO 8601 UTC. */
export function toIsoDateTime(value: unknown): string | null {
  if (typeof value !== 'string' || value === '' || value.length > LONGEST_DATE_TIME) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
