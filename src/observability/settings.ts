// Observability's settings, read by the server's config: light on purpose (no OpenTelemetry
// module is loaded unless tracing is on).

/** The samplers of the OTEL_TRACES_SAMPLER variable this gateway supports. */
export const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

export interface TracingSettings {
  exporter: 'otlp' | 'console';
  protocol: 'http/protobuf' | 'http/json';
  /** Where spans go: the traces endpoint itself (…/v1/traces). */
  endpoint: string;
  serviceName: string;
  sampler: (typeof SAMPLERS)[number];
  /** The sampler's ratio, for the traceidratio samplers. */
  samplerRatio: number;
}
