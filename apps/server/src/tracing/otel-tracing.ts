/**
 * The Tracing port on OpenTelemetry's API: spans of the global tracer provider (otel-sdk.ts registers it),
 * W3C trace context for what is stored and sent, and the ids for log lines.
 */
import {
  type Attributes,
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import type { ActiveSpan, SpanAttributes, Tracing } from "./tracing.js";

const NO_SPAN: ActiveSpan = { setAttributes() {}, link() {} };

function attributesOf(attributes: SpanAttributes): Attributes {
  const defined: Attributes = {};
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) defined[name] = value;
  return defined;
}

function activeSpanOf(span: Span): ActiveSpan {
  return {
    setAttributes: (attributes) => span.setAttributes(attributesOf(attributes)),
    link: (traceparent) => {
      if (traceparent === undefined) return;
      const linked = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
      if (linked && isSpanContextValid(linked)) span.addLink({ context: linked });
    },
  };
}

/**
 * Called once the SDK is registered: a tracer taken before would be the API's proxy, and this module's
 * copy of the API (ESM) is not the one the SDK registers through (CommonJS), so it would stay a no-op.
 */
export function otelTracing(): Tracing {
  const tracer = trace.getTracer("dhs-server");
  return {
    enabled: true,
    span(name, attributes, fn, options = {}) {
      const parent = context.active();
      if (options.withinTrace && trace.getSpan(parent) === undefined) return fn(NO_SPAN);
      const kind = options.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL;
      return tracer.startActiveSpan(
        name,
        { kind, attributes: attributesOf(attributes), root: options.root === true },
        options.root ? ROOT_CONTEXT : parent,
        async (span) => {
          try {
            return await fn(activeSpanOf(span));
          } catch (error) {
            // The error's kind, not its message: a message may quote what it failed on.
            span.setStatus({ code: SpanStatusCode.ERROR });
            span.setAttribute("error.type", error instanceof Error ? ((error as { code?: string }).code ?? error.name) : typeof error);
            throw error;
          } finally {
            span.end();
          }
        },
      );
    },
    traceparent() {
      const carrier: { traceparent?: string } = {};
      propagation.inject(context.active(), carrier);
      return carrier.traceparent;
    },
    outside: (fn) => context.with(ROOT_CONTEXT, fn),
    logFields() {
      const active = trace.getSpan(context.active())?.spanContext();
      return active && isSpanContextValid(active) ? { trace_id: active.traceId, span_id: active.spanId } : {};
    },
  };
}
