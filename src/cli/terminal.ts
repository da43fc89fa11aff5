// What the CLI lets through to a terminal: text from the gateway made inert (no escape sequences, no forged lines).
/**
 * Characters a terminal acts on instead of printing, or that re-arrange what is printed:
 * C0 controls (ESC starts CSI/OSC sequences that clear the screen or set the window title,
 * BEL ends OSC, CR and BS overwrite what is on the line, LF forges a line), DEL, C1
 * controls (U+009B is an 8-bit CSI, U+009D an 8-bit OSC, in terminals that honour them),
 * and the bidirectional overrides, embeddings, isolates and marks that make a line read
 * differently from its characters ("Trojan Source": U+202A–U+202E, U+2066–U+2069,
 * U+200E, U+200F, U+061C), plus the Unicode line and paragraph separators.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** Of those, the ones that separate words: they become a space, so "a\nb" does not read "ab". */
const SPACING = new Set(['\t', '\n', '\u000b', '\u000c', '\r', '\u0085', '\u2028', '\u2029']);

/**
 * One string from outside (the gateway, the upstream behind it) as it may be shown: every
 * character above removed, the spacing ones turned into a space. The result never holds a
 * line break, so each value stays inside the line the CLI puts it on.
 */
export function printable(text: string): string {
  return text.replace(UNSAFE, (char) => (SPACING.has(char) ? ' ' : ''));
}

/**
 * Every string in a value from the gateway (object keys too) through `printable`: applied
 * once to what the human-readable output is made from, so no one formatting function has
 * to remember it.
 */
export function printableData<T>(value: T): T {
  if (typeof value === 'string') return printable(value) as T;
  if (Array.isArray(value)) return value.map((item) => printableData(item)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [printable(key), printableData(item)])) as T;
  }
  return value;
}

/** The same characters, which JSON.stringify leaves raw (it escapes only U+0000–U+001F). */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/**
 * `--json`'s text: the data unchanged (JSON.parse gives back exactly what arrived), with
 * DEL, C1 and the bidirectional controls written as \u escapes, so the JSON is inert on a
 * terminal too, not only in jq. Outside strings JSON has no such characters, so escaping
 * them in the text is always valid.
 */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(RAW_IN_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
