/**
 * Process entry. Tracing starts first when it is on: OpenTelemetry's instrumentations must be in place
 * before http, express, ioredis and undici are loaded, so the service (serve.ts) is imported after it.
 * When it is off, none of OpenTelemetry's SDK, instrumentations or exporters is loaded.
 */
import { tracingWanted } from "./tracing/tracing.js";

const tracing = tracingWanted(process.env) ? (await import("./tracing/otel-sdk.js")).startTracing() : undefined;
const { serve } = await import("./serve.js");
await serve(tracing ? { tracing: tracing.tracing, flushTraces: tracing.shutdown } : {});
