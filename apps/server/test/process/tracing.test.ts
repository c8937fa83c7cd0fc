/**
 * Tracing as an operator turns it on: the built server with OpenTelemetry's own variables, exporting to
 * an OTLP/HTTP receiver of the test's (no collector), on Redis and a LiveKit stand-in. A create continues
 * the caller's trace through Redis and LiveKit; the timer and the webhook delivery it causes are traces
 * of their own linked to it; no attribute holds a secret; and with tracing off, no OpenTelemetry module is
 * loaded at all.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeLiveKit, scanForSecrets, until, WebhookReceiver } from "@dhs/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { useServiceDatabase } from "../support/database.js";
import { OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.js";
import { killServerProcesses, startServerProcess } from "../support/server-process.js";

const KEY = "dhs_dev_insecure_local_key";
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const CALLER_TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

let livekit: FakeLiveKit;
let hooks: WebhookReceiver;
let otlp: OtlpReceiver;
const database = useServiceDatabase();
beforeAll(async () => {
  [livekit, hooks, otlp] = await Promise.all([new FakeLiveKit().start(), new WebhookReceiver().start(), new OtlpReceiver().start()]);
});
afterEach(() => {
  killServerProcesses();
  otlp.requests.length = 0;
});
afterAll(async () => {
  await Promise.all([livekit.stop(), hooks.stop(), otlp.stop()]);
});

function serverEnv(extra: Record<string, string>): Record<string, string> {
  return {
    REDIS_URL: inject("redisUrl"),
    DATABASE_URL: database.url(),
    REDIS_KEY_PREFIX: `trace${crypto.randomUUID().slice(0, 8)}`,
    LIVEKIT_API_URL: livekit.url,
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    SWEEP_INTERVAL_MS: "100",
    ...extra,
  };
}

const api = (url: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${KEY}`, "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** A create as a caller in a trace of its own sends it. */
const createInCallerTrace = (url: string) =>
  api(url, "POST", "/v1/sessions", {}, { "Idempotency-Key": crypto.randomUUID(), traceparent: CALLER_TRACEPARENT });

const named = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);

describe("with OTEL_EXPORTER_OTLP_ENDPOINT set (http/json)", () => {
  it("a create continues the caller's trace through Redis's scripts and LiveKit, and its timer and webhook delivery are traces linked to it", async () => {
    const proc = startServerProcess(
      serverEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_BSP_SCHEDULE_DELAY: "100",
        SESSION_JOIN_TIMEOUT_S: "1",
      }),
    );
    const { url } = await proc.listening;
    const endpoint = (await (await api(url, "POST", "/v1/webhook-endpoints", { url: hooks.url })).json()) as { id: string; secret: string };
    hooks.secrets = [endpoint.secret];

    const created = await createInCallerTrace(url);
    expect(created.status).toBe(201);
    const session = (await created.json()) as { id: string; participant_token: string };
    // The answer names the trace (W3C traceresponse): the caller's trace, the service's span.
    const traceresponse = created.headers.get("traceresponse") ?? "";
    expect(traceresponse).toMatch(new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-01$`));

    // The request: its span is the caller's span's child, named by the operation.
    const spans = await until(() => {
      const all = otlp.spans();
      return named(all, "createSession").length > 0 && named(all, "webhook.attempt").length > 0 && named(all, "session.timer").length > 0
        ? all
        : undefined;
    });
    const request = named(spans, "createSession")[0] as ReceivedSpan;
    expect(request).toMatchObject({ traceId: CALLER_TRACE, parentSpanId: CALLER_SPAN, service: "dhs-server" });
    expect(request.spanId).toBe(traceresponse.split("-")[2]);
    expect(request.attributes).toMatchObject({
      "dhs.operation_id": "createSession",
      "dhs.account.id": "acct_dev",
      "dhs.account.mode": "live",
      "http.route": "/v1/sessions",
      "http.response.status_code": 201,
    });
    // Within it: the store's scripts by name, LiveKit's calls by service and method.
    const inRequest = spans.filter((span) => span.traceId === CALLER_TRACE).map((span) => span.name);
    expect(inRequest).toEqual(
      expect.arrayContaining(["redis beginCreate", "redis reserve", "redis completeCreate", "livekit.RoomService/CreateRoom"]),
    );
    expect(named(spans, "livekit.RoomService/CreateRoom")[0]?.attributes).toMatchObject({
      "rpc.system": "twirp",
      "rpc.method": "CreateRoom",
    });

    // The session.created delivery: an attempt of its own trace, linked to the create, its traceparent sent.
    const delivered = await until(() => hooks.acknowledged("session.created")[0]);
    const attempt = named(spans, "webhook.attempt").find(
      (span) => span.attributes["dhs.webhook.event_id"] === delivered.id,
    ) as ReceivedSpan;
    expect(attempt.traceId).not.toBe(CALLER_TRACE);
    expect(attempt.links.map((link) => link.traceId)).toContain(CALLER_TRACE);
    expect(attempt.attributes).toMatchObject({
      "dhs.webhook.endpoint_id": endpoint.id,
      "dhs.webhook.event_type": "session.created",
      "dhs.webhook.attempt": 1,
      "http.response.status_code": 200,
    });
    expect(delivered.traceparent).toBe(`00-${attempt.traceId}-${attempt.spanId}-01`);

    // Nobody joins: the join timeout fires a second later, in a trace linked to the create, and ends it.
    const ended = await until(() => {
      const transition = otlp
        .spans()
        .find((span) => span.name === "session.transition" && span.attributes["dhs.session.event"] === "join_timeout");
      return transition;
    });
    const timer = otlp.spans().find((span) => span.spanId === ended.parentSpanId) as ReceivedSpan;
    expect(timer).toMatchObject({ name: "session.timer", attributes: { "dhs.timer": "join_timeout", "dhs.session.id": session.id } });
    expect(timer.links.map((link) => link.traceId)).toContain(CALLER_TRACE);
    expect(ended.attributes).toMatchObject({
      "dhs.session.from": "created",
      "dhs.session.to": "cancelled",
      "dhs.session.end_reason": "join_timeout",
    });

    // The request's log line names its trace, the delivery's line its attempt's.
    const logLines = proc.output().stdout.split("\n");
    const requestLine = logLines.find(
      (line) => line.includes('"msg":"request"') && line.includes('"route":"/v1/sessions"') && line.includes('"POST"'),
    );
    expect(JSON.parse(requestLine as string)).toMatchObject({ trace_id: CALLER_TRACE, span_id: request.spanId });
    const attemptLine = logLines.find((line) => line.includes('"msg":"webhook attempt"') && line.includes(delivered.id));
    expect(JSON.parse(attemptLine as string)).toMatchObject({ trace_id: attempt.traceId, span_id: attempt.spanId });

    // No attribute, name or link of any span holds a secret: the exports as written, line by line.
    const dir = mkdtempSync(join(tmpdir(), "dhs-otlp-"));
    const lines = otlp.spans().flatMap((span) => [span.name, ...Object.entries(span.attributes).map(([k, v]) => `${k}=${String(v)}`)]);
    writeFileSync(join(dir, "spans.log"), `${lines.join("\n")}\n`);
    const scan = scanForSecrets(dir, [KEY, session.participant_token, endpoint.secret]);
    expect(scan.lines).toBeGreaterThan(50);
    expect(scan.findings).toEqual([]);
  });
});

describe("with OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf", () => {
  it("exports the request's spans as protobuf to the endpoint's /v1/traces", async () => {
    const proc = startServerProcess(
      serverEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf", OTEL_BSP_SCHEDULE_DELAY: "100" }),
    );
    const { url } = await proc.listening;
    const answer = await api(url, "GET", "/v1/me", undefined, { traceparent: CALLER_TRACEPARENT });
    expect(answer.status).toBe(200);
    const exported = await until(() =>
      otlp.requests.find((request) => request.contentType === "application/x-protobuf" && request.body.includes("getPrincipal")),
    );
    // Protobuf carries trace ids as their 16 bytes.
    expect(exported.body.includes(Buffer.from(CALLER_TRACE, "hex"))).toBe(true);
  });
});

describe("with tracing off (no OTEL_ variable)", () => {
  it("loads none of OpenTelemetry's SDK, instrumentations or exporters, and answers no traceresponse", async () => {
    // A preload records every module the process loads: CommonJS ones at exit, ES modules as resolved.
    const dir = mkdtempSync(join(tmpdir(), "dhs-modules-"));
    const preload = join(dir, "record-modules.cjs");
    const hook = `
      import { appendFileSync } from "node:fs";
      let file;
      export function initialize(data) { file = data.file; }
      export async function resolve(specifier, context, next) {
        const resolved = await next(specifier, context);
        appendFileSync(file, resolved.url + "\\n");
        return resolved;
      }`;
    writeFileSync(
      preload,
      `const { register } = require("node:module");
       const { writeFileSync } = require("node:fs");
       register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hook)}), { data: { file: ${JSON.stringify(join(dir, "esm.txt"))} } });
       process.on("exit", () => writeFileSync(${JSON.stringify(join(dir, "cjs.txt"))}, Object.entries(require.cache).map(([file, m]) => file + "\\t" + (m.parent?.filename ?? "")).join("\\n")));`,
    );
    const proc = startServerProcess(serverEnv({ NODE_OPTIONS: `--require ${preload}` }));
    const { url } = await proc.listening;
    const created = await createInCallerTrace(url);
    expect(created.status).toBe(201);
    expect(created.headers.get("traceresponse")).toBeNull();
    proc.child.kill("SIGTERM");
    expect((await proc.exited)[0]).toBe(0);

    const cjs = readFileSync(join(dir, "cjs.txt"), "utf8").split("\n");
    const esm = readFileSync(join(dir, "esm.txt"), "utf8").split("\n");
    // The record itself works: the service's own dependencies are in it.
    for (const dependency of ["/ioredis/", "/express/", "/undici/"]) expect([...cjs, ...esm].join("\n")).toContain(dependency);
    expect(esm.filter((url) => /opentelemetry|in-the-middle/.test(url))).toEqual([]);
    // prom-client's default process metrics require OpenTelemetry's API (a no-op facade while no SDK is
    // registered), traced or not; nothing else of OpenTelemetry is loaded.
    const otel = cjs.filter((line) => /opentelemetry|in-the-middle/.test(line.split("\t")[0] ?? ""));
    expect(otel.filter((line) => !line.includes("/@opentelemetry/api/"))).toEqual([]);
    const apiEntry = otel.find((line) => line.split("\t")[0]?.endsWith("/@opentelemetry/api/dist/index.cjs")) ?? "";
    expect(apiEntry.split("\t")[1]).toMatch(/\/prom-client\/lib\/metrics\/processCpuTotal\.js$/);
    expect(otlp.requests).toEqual([]);
  });
});
