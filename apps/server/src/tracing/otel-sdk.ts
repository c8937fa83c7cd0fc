/**
 * Starts OpenTelemetry's Node SDK, configured by OpenTelemetry's own variables only (exporter, protocol,
 * endpoint, headers, sampler, batch processor, resource), with the instrumentations of what the service
 * uses: http (the server span of each request, which continues an incoming `traceparent` and answers a
 * `traceresponse`), express, ioredis and undici (LiveKit's API). main.ts imports this module, and only
 * when tracing is on, before the rest of the service, so the instrumentations are in place when http,
 * express, ioredis and undici load.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { register } from "node:module";
import type { Span } from "@opentelemetry/api";
import { ExpressInstrumentation, ExpressLayerType } from "@opentelemetry/instrumentation-express";
import { HttpInstrumentation } from "@opentelemetry/instrumentation-http";
import { IORedisInstrumentation } from "@opentelemetry/instrumentation-ioredis";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { WEBHOOK_USER_AGENT } from "../customer-webhooks/user-agent.js";
import { otelTracing } from "./otel-tracing.js";
import type { RequestLocals, Tracing } from "./tracing.js";

// Probes and the metrics scrape, many a minute on every replica: no trace says anything about them.
const UNTRACED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

/** The request's span named by the contract's operation, with its account, mode and error code. */
function annotateRequest(span: Span, response: ServerResponse | IncomingMessage): void {
  const locals = (response as { locals?: RequestLocals }).locals;
  if (!locals) return;
  if (locals.operationId) {
    span.updateName(locals.operationId);
    span.setAttribute("dhs.operation_id", locals.operationId);
  }
  // The contract's template, not the router's mount point (the whole API is one layer at /v1).
  if (locals.route) span.setAttribute("http.route", locals.route);
  if (locals.principal) {
    span.setAttribute("dhs.account.id", locals.principal.account);
    span.setAttribute("dhs.account.mode", locals.principal.mode);
  }
  if (locals.errorCode) span.setAttribute("dhs.error.code", locals.errorCode);
}

/** W3C Trace Context's `traceresponse`: the trace a customer quotes beside X-Request-ID. */
function answerTraceResponse(span: Span, response: ServerResponse | IncomingMessage): void {
  if (!("setHeader" in response) || response.headersSent) return;
  const { traceId, spanId, traceFlags } = span.spanContext();
  response.setHeader("traceresponse", `00-${traceId}-${spanId}-0${traceFlags & 1}`);
}

const isWebhookDelivery = (headers: string | string[] | undefined): boolean =>
  (Array.isArray(headers) ? headers.join("\n") : String(headers ?? "")).includes(WEBHOOK_USER_AGENT);

export function startTracing(): { tracing: Tracing; shutdown: () => Promise<void> } {
  const env = process.env;
  // OTLP carries traces only unless the operator says otherwise: metrics are Prometheus's (/metrics),
  // logs go to stdout. The service is named unless OTEL_SERVICE_NAME names it.
  env.OTEL_METRICS_EXPORTER ??= "none";
  env.OTEL_LOGS_EXPORTER ??= "none";
  env.OTEL_SERVICE_NAME ??= "dhs-server";
  // The service imports ioredis and undici as ES modules, which the instrumentations see only through
  // this loader hook; it wraps these packages alone, not every module the process loads.
  register("@opentelemetry/instrumentation/hook.mjs", import.meta.url, {
    data: { include: ["ioredis", "undici", "express"] },
  });
  const sdk = new NodeSDK({
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? "").split("?")[0] ?? ""),
        responseHook: answerTraceResponse,
        applyCustomAttributesOnSpan: (span, _request, response) => annotateRequest(span, response),
      }),
      // Route handlers only (probes, LiveKit's webhooks): the whole API is one middleware layer, and a
      // span for each of helmet, the request id, the logger and each router passed costs more than it tells.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
      // Within a request's or a timer's trace only (not every background poll), and never a command's
      // arguments: keys name accounts and sessions, values hold session data.
      new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
      new UndiciInstrumentation({
        requireParentforSpans: true,
        ignoreRequestHook: (request) => isWebhookDelivery(request.headers as string | string[] | undefined),
      }),
    ],
  });
  sdk.start();
  return { tracing: otelTracing(), shutdown: () => sdk.shutdown() };
}
