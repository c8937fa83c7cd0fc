/**
 * What the service asks of tracing, so that domain, store, LiveKit and workers name their spans without
 * knowing OpenTelemetry. When tracing is off the service runs with NO_TRACING and none of OpenTelemetry's
 * SDK is loaded (main.ts loads otel-sdk.ts only when an exporter is configured); each call then costs a
 * function call. Attributes are ids, names, statuses and codes: never a key, a token, a secret or a
 * participant's metadata.
 */

export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface ActiveSpan {
  setAttributes(attributes: SpanAttributes): void;
  /** Links the span to the trace a W3C `traceparent` stored earlier names (its cause); ignored when absent or malformed. */
  link(traceparent: string | undefined): void;
}

export interface SpanOptions {
  /** `client` for a call to another service (LiveKit, Redis, a customer's endpoint); `internal` otherwise. */
  kind?: "internal" | "client";
  /** A trace of its own: work started later (a timer, a queued delivery), linked to its cause rather than a child of it. */
  root?: boolean;
  /** Only inside a trace: without an active span nothing is recorded (the background polls of every replica). */
  withinTrace?: boolean;
}

export interface Tracing {
  readonly enabled: boolean;
  /** Runs `fn` in a span; an error it throws is recorded on the span, which ends either way. */
  span<T>(name: string, attributes: SpanAttributes, fn: (span: ActiveSpan) => Promise<T>, options?: SpanOptions): Promise<T>;
  /** The active span as a W3C `traceparent`, stored with the work it causes later; undefined outside a trace. */
  traceparent(): string | undefined;
  /** `trace_id` and `span_id` of the active span, for log lines; empty outside a trace. */
  logFields(): { trace_id?: string; span_id?: string };
  /** Runs `fn` outside any trace: background work a request only wakes up is none of its trace. */
  outside<T>(fn: () => T): T;
}

const NO_SPAN: ActiveSpan = { setAttributes() {}, link() {} };

export const NO_TRACING: Tracing = {
  enabled: false,
  span: (_name, _attributes, fn) => fn(NO_SPAN),
  traceparent: () => undefined,
  logFields: () => ({}),
  outside: (fn) => fn(),
};

/**
 * What the HTTP layer leaves in `res.locals` that a request's span is named and annotated with: the
 * contract's operation (dispatch), the caller's account and mode (authentication), and the code of an
 * ApiError answer (the error handler).
 */
export interface RequestLocals {
  operationId?: string;
  /** The contract's path template of the operation. */
  route?: string;
  principal?: { account: string; mode: string };
  errorCode?: string;
}

/**
 * Whether the process traces, by OpenTelemetry's own variables: an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or an explicit
 * `OTEL_TRACES_EXPORTER` other than `none` (`console` for development), unless `OTEL_SDK_DISABLED=true`.
 */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === "none") return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || exporter);
}
