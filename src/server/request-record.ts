// RequestRecord: what the server and its observability keep of one request, beside the call scope it lends the layers below.
import type { LoadStats } from '../graph/loaders.js';
import type { RequestFacts } from '../observability/metrics.js';
import type { TracedRequest } from '../observability/tracing.js';
import type { CallScope } from '../upstream/scope.js';

/**
 * One request's record, made with its call scope when it arrives: its operation, its errors
 * by code, whether it began, its loads, its trace and the fields its log line carries. The
 * lifecycle writes the operation and the errors (so does the WebSocket endpoint for its
 * operations), the tracing its trace and the trace's ids, the DataLoaders their loads; the
 * log line and the metrics read it. The layers below the server see no more of it than they
 * say they need: the metrics their RequestFacts, the tracing its TracedRequest, the loaders
 * its `loads` and the field tracer made over it, the upstream calls the observer made over it.
 */
export class RequestRecord implements RequestFacts, TracedRequest {
  readonly startedAt = Date.now();
  /** The operation's name, once known: for the log line. */
  operationName: string | null = null;
  /** Whether the operation began to run: errors answered before that refused it on the way in (the metrics' phase). */
  began = false;
  /** The errors answered, how many of each code: for the log line and the metrics. */
  readonly errorCodes = new Map<string, number>();
  /** Fields that tie the log line to other records (the trace's ids). */
  readonly logFields: Record<string, string> = {};
  /** What the request's DataLoaders did (the metrics count the loads they saved). */
  readonly loads: LoadStats = { loads: 0, fetches: 0 };
  /** The request's trace when tracing is on (tracing.ts): its context, server span, or the watch its calls share. */
  trace: TracedRequest['trace'];

  /** Counts an error answered. */
  answeredError(code: string): void {
    this.errorCodes.set(code, (this.errorCodes.get(code) ?? 0) + 1);
  }
}

/** What a request's log line says of it, whichever transport carried it. */
export function requestSummary(scope: CallScope, record: RequestRecord) {
  const { budget } = scope;
  return {
    requestId: scope.id,
    ...record.logFields,
    operation: record.operationName,
    ms: Date.now() - record.startedAt,
    upstreamCalls: budget.calls,
    ...(budget.refused > 0 ? { upstreamCallsRefused: budget.refused } : {}),
    errorCodes: [...record.errorCodes.keys()],
  };
}
