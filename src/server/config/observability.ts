// What the gateway says about itself: its log, its metrics, and its traces from the standard
// OTEL_* variables.
import { z } from 'zod';
import { SAMPLERS, type TracingSettings } from '../../observability/settings.js';
import { flag, httpUrl } from './kinds.js';

/** The share of new traces recorded in production when OTEL_TRACES_SAMPLER_ARG is unset. */
export const PRODUCTION_SAMPLE_RATIO = 0.1;

export const observabilityVariables = z.object({
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info')
    .describe(
      "The log's level (pino). The log is JSON lines on stdout; on a terminal outside production, lines for a person (pino-pretty).",
    ),
  METRICS_PATH: z
    .string()
    .trim()
    .regex(/^(off|\/[\w./-]*)$/, 'METRICS_PATH must be a path such as /metrics, or off')
    .default('/metrics')
    .describe(
      "Where Prometheus metrics are served (`GET`, on the gateway's port), or `off`. Not `/graphql` or under `/tracker/`: keep it off the public side.",
    ),
  // The OpenTelemetry SDK's standard variables (the ones this gateway supports).
  OTEL_SDK_DISABLED: flag('OTEL_SDK_DISABLED').default(false).describe('`true` (or `on`) turns tracing off, whatever else is set.'),
  OTEL_TRACES_EXPORTER: z
    .enum(['otlp', 'console', 'none'], { error: 'OTEL_TRACES_EXPORTER must be one of otlp, console, none' })
    .optional()
    .meta({
      description: 'Where spans go. Tracing is on with `otlp` or `console`.',
      unset: '`none`, or `otlp` when an OTLP endpoint is set',
    }),
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .enum(['http/protobuf', 'http/json'], {
      error: 'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (grpc is not supported)',
    })
    .default('http/protobuf')
    .describe('How spans are sent to the collector (gRPC is not supported).'),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: z
    .enum(['http/protobuf', 'http/json'], {
      error: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http/protobuf or http/json (grpc is not supported)',
    })
    .optional()
    .meta({ description: 'The same for traces alone, in place of the general one.', unset: "`OTEL_EXPORTER_OTLP_PROTOCOL`'s" }),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT')
    .optional()
    .meta({ description: 'The collector; `/v1/traces` is appended. Setting it turns tracing on.', unset: '`http://localhost:4318`' }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT').optional().meta({
    description: 'The traces endpoint, used as it is. Setting it turns tracing on.',
    unset: 'the general endpoint with `/v1/traces` appended',
  }),
  OTEL_SERVICE_NAME: z.string().trim().default('order-graph').describe('The `service.name` of every span.'),
  OTEL_TRACES_SAMPLER: z
    .enum(SAMPLERS, { error: `OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}` })
    .default('parentbased_traceidratio')
    .describe(
      "Which requests are traced. The default follows a caller's `traceparent`, sampled or not, and records a new trace at the ratio `OTEL_TRACES_SAMPLER_ARG` gives.",
    ),
  // Unset: every trace in development, one in ten new traces in production (a caller's sampled
  // traceparent is always followed): a recorded trace costs its request about a third more CPU.
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .trim()
    .refine((v) => /^(0|1|0?\.\d+|1\.0*)$/.test(v), 'OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1')
    .transform(Number)
    .optional()
    .meta({
      description: 'The share of new traces recorded (from 0 to 1), for the `traceidratio` samplers.',
      unset: '`1` (`0.1` in production)',
    }),
});

type ObservabilityValues = z.output<typeof observabilityVariables>;

/** The public side (the shipped nginx file and Ingress) routes /graphql and /tracker/: metrics there would be public. */
export function metricsPathProblems(values: ObservabilityValues): string[] {
  return /^\/(graphql$|tracker(\/|$))/.test(values.METRICS_PATH)
    ? ['METRICS_PATH must be off the public paths (/graphql, /tracker/): e.g. /metrics']
    : [];
}

/**
 * Tracing is on when an exporter is named, or an OTLP endpoint is set without one: with
 * nothing configured it stays off and costs nothing (the SDK is not even loaded).
 */
export function tracingSettings(values: ObservabilityValues, production: boolean): TracingSettings | null {
  const exporter =
    values.OTEL_TRACES_EXPORTER ?? (values.OTEL_EXPORTER_OTLP_ENDPOINT || values.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'otlp' : 'none');
  if (values.OTEL_SDK_DISABLED || exporter === 'none') return null;
  const base = values.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, '') ?? 'http://localhost:4318';
  return {
    exporter,
    protocol: values.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? values.OTEL_EXPORTER_OTLP_PROTOCOL,
    // The signal's own endpoint is used as it is; the general one gets the signal's path.
    endpoint: values.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${base}/v1/traces`,
    serviceName: values.OTEL_SERVICE_NAME,
    sampler: values.OTEL_TRACES_SAMPLER,
    samplerRatio: values.OTEL_TRACES_SAMPLER_ARG ?? (production ? PRODUCTION_SAMPLE_RATIO : 1),
  };
}
