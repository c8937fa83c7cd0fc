import { NodeSDK } from "@opentelemetry/sdk-node";
import * as sdkTracing from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { otelTracing } from "./otel-tracing.js";
import type { Tracing } from "./tracing.js";

const exporter = new sdkTracing.InMemorySpanExporter();
let sdk: NodeSDK;
let tracing: Tracing;

beforeAll(() => {
  process.env.OTEL_METRICS_EXPORTER = "none";
  process.env.OTEL_LOGS_EXPORTER = "none";
  // No resource detectors: with them, the span processor waits for their answers before it exports.
  sdk = new NodeSDK({ spanProcessors: [new sdkTracing.SimpleSpanProcessor({ exporter })], instrumentations: [], resourceDetectors: [] });
  sdk.start();
  tracing = otelTracing();
});
afterAll(() => sdk.shutdown());
beforeEach(() => exporter.reset());

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe("the OpenTelemetry tracing", () => {
  it("nests a span in the active one, and names it in traceparent and the log fields while it runs", async () => {
    let inner: { traceparent: string | undefined; log: object } | undefined;
    await tracing.span("outer", { "dhs.session.id": "s1", "dhs.session.end_reason": undefined }, () =>
      tracing.span("inner", {}, async () => {
        inner = { traceparent: tracing.traceparent(), log: tracing.logFields() };
      }),
    );
    const [innerSpan, outerSpan] = exporter.getFinishedSpans();
    expect(innerSpan?.parentSpanContext?.spanId).toBe(outerSpan?.spanContext().spanId);
    expect(outerSpan?.attributes).toEqual({ "dhs.session.id": "s1" });
    expect(inner?.traceparent).toBe(`00-${innerSpan?.spanContext().traceId}-${innerSpan?.spanContext().spanId}-01`);
    expect(inner?.log).toEqual({ trace_id: innerSpan?.spanContext().traceId, span_id: innerSpan?.spanContext().spanId });
    expect(tracing.traceparent()).toBeUndefined();
    expect(tracing.logFields()).toEqual({});
  });

  it("records a thrown error's kind, not its message, and ends the span", async () => {
    const error = Object.assign(new Error("session 3fa8 of acct_secret failed"), { code: "not_found" });
    await expect(tracing.span("failing", {}, async () => Promise.reject(error))).rejects.toBe(error);
    const [span] = exporter.getFinishedSpans();
    expect(span?.status.code).toBe(2);
    expect(span?.attributes).toEqual({ "error.type": "not_found" });
    expect(span?.events).toEqual([]);
  });

  it("starts a root span in a trace of its own, linked to a stored traceparent; a malformed one is no link", async () => {
    let cause: string | undefined;
    await tracing.span("request", {}, async () => {
      cause = tracing.traceparent();
      await tracing.span(
        "timer",
        {},
        async (span) => {
          span.link(cause);
          span.link("00-not-a-trace");
          span.link(undefined);
        },
        { root: true },
      );
    });
    const timer = exporter.getFinishedSpans().find((span) => span.name === "timer");
    const [, causeTrace, causeSpan] = TRACEPARENT.exec(cause ?? "") ?? [];
    expect(timer?.parentSpanContext).toBeUndefined();
    expect(timer?.spanContext().traceId).not.toBe(causeTrace);
    expect(timer?.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([[causeTrace, causeSpan]]);
  });

  it("records a span marked withinTrace only inside a trace, and nothing of a trace inside outside()", async () => {
    await tracing.span("redis claimDue", {}, async () => undefined, { withinTrace: true });
    expect(exporter.getFinishedSpans()).toEqual([]);
    await tracing.span("request", {}, async () => {
      await tracing.span("redis beginCreate", {}, async () => undefined, { withinTrace: true, kind: "client" });
      await tracing.outside(() => tracing.span("redis claimDue", {}, async () => undefined, { withinTrace: true }));
      expect(tracing.outside(() => tracing.traceparent())).toBeUndefined();
    });
    expect(exporter.getFinishedSpans().map((span) => [span.name, span.kind])).toEqual([
      ["redis beginCreate", 2],
      ["request", 0],
    ]);
  });
});
