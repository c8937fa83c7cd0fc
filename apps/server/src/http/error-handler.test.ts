import { describe, expect, it } from "vitest";
import { AppError } from "../domain/app-error.js";
import { DependencyFaultError, DependencyUnavailableError } from "../domain/dependency-errors.js";
import { errorHandler, toAppError } from "./error-handler.js";
import { STATUS_OF } from "./error-status.js";

describe("toAppError, the one mapping of errors to answers", () => {
  const cases: [
    string,
    unknown,
    { code: string; status: number; detail?: unknown; headers?: Record<string, string>; retryAfterSeconds?: number },
  ][] = [
    [
      "an AppError stays as it is",
      new AppError("forbidden", { missing_scope: "sessions:read" }),
      { code: "forbidden", status: 403, detail: { missing_scope: "sessions:read" } },
    ],
    [
      "the store down",
      new DependencyUnavailableError("store"),
      { code: "service_unavailable", status: 503, retryAfterSeconds: 1, detail: "The session store is temporarily unavailable." },
    ],
    [
      "a dependency fault",
      new DependencyFaultError("livekit", "LiveKit refused this service's credentials"),
      { code: "internal_error", status: 500 },
    ],
    [
      "a path whose percent-encoding does not decode",
      Object.assign(new Error("malformed uri"), { status: 400, errors: [{ path: "/v1/sessions/%ZZ", message: "malformed uri'" }] }),
      { code: "not_found", status: 404, detail: "The path could not be decoded." },
    ],
    [
      "LiveKit down",
      new DependencyUnavailableError("livekit"),
      { code: "service_unavailable", status: 503, retryAfterSeconds: 1, detail: "LiveKit is temporarily unavailable." },
    ],
    [
      "a body over the limit",
      Object.assign(new Error("too large"), { type: "entity.too.large", status: 413 }),
      { code: "payload_too_large", status: 413 },
    ],
    [
      "malformed JSON",
      Object.assign(new SyntaxError("Unexpected end"), { type: "entity.parse.failed", status: 400 }),
      {
        code: "validation_failed",
        status: 422,
        detail: [{ location: "body", path: "", message: "must be a JSON object (Unexpected end)" }],
      },
    ],
    [
      "an unsupported charset",
      Object.assign(new Error("unsupported charset"), { type: "charset.unsupported", status: 415 }),
      { code: "validation_failed", status: 422 },
    ],
    [
      "a compressed body that does not decompress",
      Object.assign(new Error("incorrect header check"), { status: 400, expose: true, code: "Z_DATA_ERROR" }),
      {
        code: "validation_failed",
        status: 422,
        detail: [{ location: "body", path: "", message: "could not be read (incorrect header check)" }],
      },
    ],
    [
      "a body shorter than its Content-Length",
      Object.assign(new Error("request size did not match content length"), { status: 400, expose: true, type: "request.size.invalid" }),
      { code: "validation_failed", status: 422 },
    ],
    [
      "a 4xx error not meant to be shown stays internal",
      Object.assign(new Error("secret"), { status: 400, expose: false }),
      { code: "internal_error", status: 500 },
    ],
    [
      "validator: body problems",
      {
        status: 400,
        errors: [
          { path: "/body/tags/0", message: "must be string" },
          { path: "/headers/idempotency-key", message: "must NOT have more than 200 characters" },
        ],
      },
      {
        code: "validation_failed",
        status: 422,
        detail: [
          { location: "body", path: "tags.0", message: "must be string" },
          { location: "header", path: "Idempotency-Key", message: "must NOT have more than 200 characters" },
        ],
      },
    ],
    [
      "validator: a malformed path id",
      { status: 400, errors: [{ path: "/params/session_id", message: 'must match format "uuid"' }] },
      { code: "not_found", status: 404 },
    ],
    ["validator: no such path", { status: 404, errors: [{ path: "/v1/x", message: "not found" }] }, { code: "not_found", status: 404 }],
    [
      "validator: another method",
      { status: 405, errors: [{ path: "/v1/sessions", message: "DELETE method not allowed" }], headers: { Allow: "GET, POST" } },
      { code: "method_not_allowed", status: 405, headers: { Allow: "GET, POST" } },
    ],
    [
      "validator: another media type",
      { status: 415, errors: [{ path: "/v1/sessions", message: "unsupported media type text/plain" }] },
      { code: "validation_failed", status: 422 },
    ],
    [
      "anything else",
      new TypeError("x is undefined"),
      { code: "internal_error", status: 500, detail: "An unexpected error occurred. Quote the request id to support." },
    ],
    ["a thrown string", "boom", { code: "internal_error", status: 500 }],
  ];

  it.each(cases)("%s", (_name, given, want) => {
    const { status, ...rest } = want;
    const error = toAppError(given);
    expect(error).toMatchObject(rest);
    expect(STATUS_OF[error.code]).toBe(status);
  });

  it("never puts a stack or the original message of an unexpected error into the answer", () => {
    const error = toAppError(new Error("secret internals at /srv/app.js:12"));
    expect(JSON.stringify(error.detail)).not.toContain("secret");
  });
});

describe("errorHandler", () => {
  it("answers a plain 500 ApiError when sending the error itself fails, and logs both", () => {
    const logged: unknown[] = [];
    const sent: { status?: number; headers: Record<string, string>; body?: string } = { headers: {} };
    const res = {
      headersSent: false,
      locals: { requestId: "req_0123" },
      req: { complete: true },
      statusCode: 200,
      setHeader: (name: string, value: string) => {
        sent.headers[name] = value;
      },
      status() {
        return this;
      },
      json: () => {
        throw new Error("response validator broke");
      },
      end(body: string) {
        sent.status = this.statusCode;
        sent.body = body;
      },
    };
    errorHandler((error) => logged.push(error))(new AppError("not_found", "No such session."), {} as never, res as never, () => undefined);
    expect(sent.status).toBe(500);
    expect(JSON.parse(sent.body ?? "")).toEqual({
      code: "internal_error",
      detail: "An unexpected error occurred. Quote the request id to support.",
      request_id: "req_0123",
    });
    expect(sent.headers["Content-Type"]).toMatch(/^application\/json/);
    expect(logged).toEqual([expect.objectContaining({ message: "response validator broke" })]);
  });
});
