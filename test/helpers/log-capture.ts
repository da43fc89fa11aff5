// What the test gateways log and trace, captured in this process: the log lines (checked for
// secrets after each file, test/setup/no-secrets-in-logs.ts) and in-memory spans.
import { Writable } from 'node:stream';
import type { InMemorySpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import { createLogger } from '../../src/server/logger.js';

/** Every log line the gateways of this test file wrote, at debug level (cleared once the file is checked). */
export const capturedLogLines: string[] = [];
const spanExporters: InMemorySpanExporter[] = [];

/** The gateway's own logger (its redaction included), writing into capturedLogLines (at debug unless told). */
export function captureLogger(level = 'debug'): Logger {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      capturedLogLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return createLogger(level, sink);
}

/**
 * The gateway's tracing over an in-memory exporter, whose spans the no-secrets check reads
 * too. (Loaded on demand: most test files never trace.)
 */
export async function captureTracing(untracedPaths: readonly string[] = ['/healthz', '/readyz', '/metrics']) {
  const { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } = await import('@opentelemetry/sdk-trace');
  const { createTracing } = await import('../../src/observability/tracing.js');
  const exporter = new InMemorySpanExporter();
  spanExporters.push(exporter);
  const tracing = createTracing(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }), { untracedPaths });
  return { tracing, spans: (): ReadableSpan[] => exporter.getFinishedSpans() };
}

/** Each exported span as text: its name, attributes, events and status. */
export const capturedSpanTexts = () =>
  spanExporters
    .flatMap((exporter) => exporter.getFinishedSpans())
    .map((span) => JSON.stringify({ name: span.name, attributes: span.attributes, events: span.events, status: span.status }));

// What must never appear in a log line or a span: a JWT, a bearer header, a demo or test password.
const SECRET_PATTERNS = [
  /eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}/,
  /Bearer\s/i,
  /demo-password-\d/,
  /wrong-password/,
  /opaque-access-token/,
  // A webhook's signing secret, and a value the notification vault sealed (a token or an address).
  /whsec_/,
  /v1\.[\w-]{1,32}\.[\w-]{16}\.[\w-]{22}\./,
];

/** The captured lines and spans that hold a secret. */
export const leakedLines = () => [...capturedLogLines, ...capturedSpanTexts()].filter((line) => SECRET_PATTERNS.some((p) => p.test(line)));

/** Forgets what the file's gateways wrote and traced, once it is checked: the next file in this worker starts empty. */
export function clearCaptured(): void {
  capturedLogLines.length = 0;
  spanExporters.length = 0;
}
