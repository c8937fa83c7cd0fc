import { describe, expect, it } from "vitest";
import { NO_TRACING, tracingWanted } from "./tracing.js";

describe("tracingWanted", () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "  " }, false],
    [{ OTEL_TRACES_EXPORTER: "console" }, true],
    [{ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, false],
    [{ OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, false],
    [{ OTEL_SDK_DISABLED: "false", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, true],
    // A service name or sampler alone exports nowhere.
    [{ OTEL_SERVICE_NAME: "dhs", OTEL_TRACES_SAMPLER: "always_on" }, false],
  ])("%o: %s", (env, wanted) => {
    expect(tracingWanted(env as NodeJS.ProcessEnv)).toBe(wanted);
  });
});

describe("NO_TRACING", () => {
  it("runs the work as is, with no trace to store or log", async () => {
    const work = async (span: { link(traceparent: string): void }) => {
      span.link("00-x");
      return 42;
    };
    expect(await NO_TRACING.span("x", { a: 1 }, work)).toBe(42);
    await expect(NO_TRACING.span("x", {}, async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(NO_TRACING.traceparent()).toBeUndefined();
    expect(NO_TRACING.logFields()).toEqual({});
    expect(NO_TRACING.outside(() => 7)).toBe(7);
  });
});
