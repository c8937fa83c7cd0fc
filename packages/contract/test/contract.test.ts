/**
 * The binding facts of the interface specification and the decisions built on it, checked against openapi/v1.yaml.
 * Redocly checks that the document is well formed and its examples valid; this checks that it says what
 * we were asked for, so an edit that drifts from the specification fails here.
 */
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

type Json = Record<string, any>;
const doc: Json = parse(readFileSync(new URL("../../../openapi/v1.yaml", import.meta.url), "utf8"));
const schemas: Json = doc.components.schemas;

function resolve(node: Json): Json {
  if (!node?.$ref) return node;
  const path = (node.$ref as string).replace(/^#\//, "").split("/");
  return resolve(path.reduce<Json>((at, key) => at[key], doc));
}

/** Validates a value against one of the document's schemas, as JSON Schema 2020-12 (OpenAPI 3.1's dialect). */
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(doc, "v1");
const valid = (schema: string, value: unknown) => ajv.validate({ $ref: `v1#/components/schemas/${schema}` }, value);

function operation(id: string): { method: string; path: string; op: Json } {
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (op?.operationId === id) return { method, path, op };
    }
  }
  throw new Error(`no operation ${id}`);
}

describe("document", () => {
  it("is OpenAPI 3.1 at version 1.0.0, every API path under /v1", () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe("1.0.0");
    for (const path of Object.keys(doc.paths)) expect(path).toMatch(/^\/v1\//);
  });

  it("authenticates with a bearer API key", () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  // oapi-codegen makes one Go type per parameter and per schema, named after the component, and refuses
  // to generate at all when two share a name; only the Go client tier (e2e) would notice otherwise.
  it("names no parameter like a schema unless it gives its Go type another name", () => {
    const clashes = Object.entries<Json>(doc.components.parameters)
      .filter(([name, parameter]) => name in schemas && parameter["x-go-name"] === undefined)
      .map(([name]) => name);
    expect(clashes).toEqual([]);
    for (const parameter of Object.values<Json>(doc.components.parameters))
      if (parameter["x-go-name"] !== undefined) expect(parameter["x-go-name"] in schemas).toBe(false);
  });
});

describe("the operations", () => {
  // The specification's statuses (getSession: four errors) plus our 429; `default` is the unexpected
  // failure (500 internal_error) of every operation, described once.
  // `scheme`: the security scheme, bearerAuth (API keys) unless said.
  const table: [
    string,
    { method: string; path: string; scopes: string[] | string[][]; success: string; errors: string[]; scheme?: string },
  ][] = [
    [
      "createSession",
      {
        method: "post",
        path: "/v1/sessions",
        scopes: ["sessions:write"],
        success: "201",
        errors: ["401", "403", "409", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "getSession",
      {
        method: "get",
        path: "/v1/sessions/{session_id}",
        scopes: ["sessions:read"],
        success: "200",
        errors: ["401", "403", "404", "429", "503", "default"],
      },
    ],
    [
      "listSessions",
      {
        method: "get",
        path: "/v1/sessions",
        scopes: ["sessions:read"],
        success: "200",
        errors: ["401", "403", "422", "429", "503", "default"],
      },
    ],
    [
      "refreshSessionToken",
      {
        method: "post",
        path: "/v1/sessions/{session_id}/token",
        scopes: ["sessions:write"],
        success: "200",
        errors: ["401", "403", "404", "409", "429", "503", "default"],
      },
    ],
    [
      "endSession",
      {
        method: "post",
        path: "/v1/sessions/{session_id}/end",
        scopes: ["sessions:write"],
        success: "200",
        errors: ["401", "403", "404", "429", "503", "default"],
      },
    ],
    ["getPrincipal", { method: "get", path: "/v1/me", scopes: [], success: "200", errors: ["401", "429", "503", "default"] }],
    ...webhookOperations(),
    [
      "createDigitalHuman",
      {
        method: "post",
        path: "/v1/digital-humans",
        scopes: ["digital_humans:write"],
        success: "201",
        errors: ["401", "403", "404", "409", "413", "422", "429", "503", "default"],
      },
    ],
    [
      // Reading a digital human takes either scope: sessions:read (what reading them took before they
      // had their own) or digital_humans:read.
      "listDigitalHumans",
      {
        method: "get",
        path: "/v1/digital-humans",
        scopes: [["digital_humans:read"], ["sessions:read"]],
        success: "200",
        errors: ["401", "403", "422", "429", "503", "default"],
      },
    ],
    [
      "getDigitalHuman",
      {
        method: "get",
        path: "/v1/digital-humans/{digital_human_id}",
        scopes: [["digital_humans:read"], ["sessions:read"]],
        success: "200",
        errors: ["401", "403", "404", "429", "503", "default"],
      },
    ],
    [
      "updateDigitalHuman",
      {
        method: "patch",
        path: "/v1/digital-humans/{digital_human_id}",
        scopes: ["digital_humans:write"],
        success: "200",
        errors: ["401", "403", "404", "409", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "deleteDigitalHuman",
      {
        method: "delete",
        path: "/v1/digital-humans/{digital_human_id}",
        scopes: ["digital_humans:write"],
        success: "200",
        errors: ["401", "403", "404", "409", "429", "503", "default"],
      },
    ],
    [
      "listVoices",
      {
        method: "get",
        path: "/v1/voices",
        scopes: [["digital_humans:read"], ["sessions:read"]],
        success: "200",
        errors: ["401", "403", "429", "503", "default"],
      },
    ],
    [
      "createDocument",
      {
        method: "post",
        path: "/v1/documents",
        scopes: ["knowledge:write"],
        success: "201",
        errors: ["401", "403", "404", "409", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "listDocuments",
      {
        method: "get",
        path: "/v1/documents",
        scopes: ["knowledge:read"],
        success: "200",
        errors: ["401", "403", "422", "429", "503", "default"],
      },
    ],
    [
      "getDocument",
      {
        method: "get",
        path: "/v1/documents/{document_id}",
        scopes: ["knowledge:read"],
        success: "200",
        errors: ["401", "403", "404", "429", "503", "default"],
      },
    ],
    [
      "deleteDocument",
      {
        method: "delete",
        path: "/v1/documents/{document_id}",
        scopes: ["knowledge:write"],
        success: "200",
        errors: ["401", "403", "404", "429", "503", "default"],
      },
    ],
    [
      "searchKnowledge",
      {
        method: "post",
        path: "/v1/digital-humans/{digital_human_id}/knowledge/search",
        scopes: ["knowledge:read"],
        success: "200",
        errors: ["401", "403", "404", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "getUsage",
      {
        method: "get",
        path: "/v1/usage",
        scopes: ["sessions:read"],
        success: "200",
        errors: ["401", "403", "422", "429", "503", "default"],
      },
    ],
    [
      "sendTestSessionEvent",
      {
        method: "post",
        path: "/v1/test-helpers/sessions/{session_id}/events",
        scopes: ["sessions:write"],
        success: "200",
        errors: ["401", "403", "404", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "getSessionTranscript",
      {
        method: "get",
        path: "/v1/sessions/{session_id}/transcript",
        scopes: ["sessions:read"],
        success: "200",
        errors: ["401", "403", "404", "422", "429", "503", "default"],
      },
    ],
    [
      "deleteSessionTranscript",
      {
        method: "delete",
        path: "/v1/sessions/{session_id}/transcript",
        scopes: ["sessions:write"],
        success: "200",
        errors: ["401", "403", "404", "429", "503", "default"],
      },
    ],
    [
      // The digital human's: its own token, never an API key, so no scope and no 403.
      "appendTranscriptSegments",
      {
        method: "post",
        path: "/v1/sessions/{session_id}/transcript/segments",
        scopes: [],
        scheme: "digitalHumanToken",
        success: "200",
        errors: ["401", "404", "409", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "searchSessionKnowledge",
      {
        method: "post",
        path: "/v1/sessions/{session_id}/conversation/knowledge",
        scopes: [],
        scheme: "digitalHumanToken",
        success: "200",
        errors: ["401", "404", "409", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "say",
      {
        method: "post",
        path: "/v1/sessions/{session_id}/say",
        scopes: ["sessions:write"],
        success: "202",
        errors: ["401", "403", "404", "409", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "getUtterance",
      {
        method: "get",
        path: "/v1/sessions/{session_id}/say/{utterance_id}",
        scopes: ["sessions:read"],
        success: "200",
        errors: ["401", "403", "404", "429", "503", "default"],
      },
    ],
    [
      "interruptSession",
      {
        method: "post",
        path: "/v1/sessions/{session_id}/interrupt",
        scopes: ["sessions:write"],
        success: "200",
        errors: ["401", "403", "404", "409", "429", "503", "default"],
      },
    ],
    [
      "addSessionContext",
      {
        method: "post",
        path: "/v1/sessions/{session_id}/context",
        scopes: ["sessions:write"],
        success: "202",
        errors: ["401", "403", "404", "409", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "pullConversation",
      {
        method: "post",
        path: "/v1/sessions/{session_id}/conversation/pull",
        scopes: [],
        scheme: "digitalHumanToken",
        success: "200",
        errors: ["401", "404", "409", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "reportConversation",
      {
        method: "post",
        path: "/v1/sessions/{session_id}/conversation/reports",
        scopes: [],
        scheme: "digitalHumanToken",
        success: "200",
        errors: ["401", "404", "409", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "listSessionToolCalls",
      {
        method: "get",
        path: "/v1/sessions/{session_id}/tool-calls",
        scopes: ["sessions:read"],
        success: "200",
        errors: ["401", "403", "404", "429", "503", "default"],
      },
    ],
    [
      "runToolCall",
      {
        method: "post",
        path: "/v1/sessions/{session_id}/conversation/tool-calls",
        scopes: [],
        scheme: "digitalHumanToken",
        success: "200",
        errors: ["401", "404", "409", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "callTestTool",
      {
        method: "post",
        path: "/v1/test-helpers/sessions/{session_id}/tool-calls",
        scopes: ["sessions:write"],
        success: "200",
        errors: ["401", "403", "404", "409", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "getSessionAnalysis",
      {
        method: "get",
        path: "/v1/sessions/{session_id}/analysis",
        scopes: ["sessions:read"],
        success: "200",
        errors: ["401", "403", "404", "429", "503", "default"],
      },
    ],
    [
      "getSessionRecording",
      {
        method: "get",
        path: "/v1/sessions/{session_id}/recording",
        scopes: ["sessions:read"],
        success: "200",
        errors: ["401", "403", "404", "429", "503", "default"],
      },
    ],
    [
      "deleteSessionRecording",
      {
        method: "delete",
        path: "/v1/sessions/{session_id}/recording",
        scopes: ["sessions:write"],
        success: "200",
        errors: ["401", "403", "404", "429", "503", "default"],
      },
    ],
    [
      "startSessionRecording",
      {
        method: "post",
        path: "/v1/sessions/{session_id}/recording/start",
        scopes: [],
        scheme: "digitalHumanToken",
        success: "200",
        errors: ["401", "404", "409", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "createRecordingUpload",
      {
        method: "post",
        path: "/v1/sessions/{session_id}/recording/upload",
        scopes: [],
        scheme: "digitalHumanToken",
        success: "200",
        errors: ["401", "404", "409", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "finishSessionRecording",
      {
        method: "post",
        path: "/v1/sessions/{session_id}/recording/finish",
        scopes: [],
        scheme: "digitalHumanToken",
        success: "200",
        errors: ["401", "404", "409", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "setTestSessionAnalysis",
      {
        method: "post",
        path: "/v1/test-helpers/sessions/{session_id}/analysis",
        scopes: ["sessions:write"],
        success: "200",
        errors: ["401", "403", "404", "409", "413", "422", "429", "503", "default"],
      },
    ],
    [
      "getParticipantMemory",
      {
        method: "get",
        path: "/v1/digital-humans/{digital_human_id}/memories/{participant_identity}",
        scopes: ["sessions:read"],
        success: "200",
        errors: ["401", "403", "404", "429", "503", "default"],
      },
    ],
    [
      "deleteParticipantMemory",
      {
        method: "delete",
        path: "/v1/digital-humans/{digital_human_id}/memories/{participant_identity}",
        scopes: ["sessions:write"],
        success: "200",
        errors: ["401", "403", "404", "429", "503", "default"],
      },
    ],
  ];

  it("has exactly these operations", () => {
    const ids = Object.values<Json>(doc.paths).flatMap((item) =>
      Object.values<Json>(item)
        .map((op) => op?.operationId)
        .filter(Boolean),
    );
    expect(ids.sort()).toEqual(table.map(([id]) => id).sort());
  });

  it.each(table)("%s: method, path, scope and statuses", (id, want) => {
    const { method, path, op } = operation(id);
    expect(method).toBe(want.method);
    expect(path).toBe(want.path);
    const security = op.security ?? doc.security;
    const alternatives = Array.isArray(want.scopes[0]) ? (want.scopes as string[][]) : [want.scopes as string[]];
    expect(security).toEqual(alternatives.map((scopes) => ({ [want.scheme ?? "bearerAuth"]: scopes })));
    expect(Object.keys(op.responses).sort()).toEqual([want.success, ...want.errors].sort());
  });

  it.each(table)("%s: every error answer is an ApiError with X-Request-ID", (id, want) => {
    const { op } = operation(id);
    for (const status of want.errors) {
      const response = resolve(op.responses[status]);
      expect(response.content["application/json"].schema.$ref, `${id} ${status}`).toBe("#/components/schemas/ApiError");
      expect(resolve(response.headers["X-Request-ID"]).required, `${id} ${status}`).toBe(true);
    }
  });

  it.each([
    ["createSession", "409"],
    ["createSession", "429"],
    ["createSession", "503"],
    ["getSession", "503"],
    ["getPrincipal", "429"],
  ])("%s %s declares Retry-After", (id, status) => {
    expect(resolve(operation(id).op.responses[status]).headers).toHaveProperty("Retry-After");
  });

  it.each(["createSession", "createDigitalHuman", "createDocument"])("%s declares Idempotent-Replayed on 201", (id) => {
    expect(operation(id).op.responses["201"].headers).toHaveProperty("Idempotent-Replayed");
  });
});

describe("Idempotency-Key (spec 4.1, 8)", () => {
  it.each(["createSession", "createDigitalHuman", "createDocument", "say", "addSessionContext"])(
    "is a required header of %s, 1 to 200 characters",
    (id) => {
      const params = operation(id).op.parameters.map(resolve);
      const key = params.find((p: Json) => p.name === "Idempotency-Key");
      expect(key).toMatchObject({ in: "header", required: true, schema: { type: "string", minLength: 1, maxLength: 200 } });
    },
  );

  it("without one, exactly the POSTs and DELETEs that do no more when done twice are marked x-retry-safe", () => {
    const marked = Object.values<Json>(doc.paths)
      .flatMap((item) => Object.values<Json>(item))
      .filter((op) => op?.["x-retry-safe"] !== undefined);
    expect(marked.map((op) => [op.operationId, op["x-retry-safe"]]).sort()).toEqual([
      ["appendTranscriptSegments", true],
      ["createRecordingUpload", true],
      ["deleteSessionRecording", true],
      ["deleteSessionTranscript", true],
      ["enableWebhookEndpoint", true],
      ["endSession", true],
      ["finishSessionRecording", true],
      ["interruptSession", true],
      ["pullConversation", true],
      ["refreshSessionToken", true],
      ["reportConversation", true],
      ["runToolCall", true],
      ["searchKnowledge", true],
      ["searchSessionKnowledge", true],
      ["startSessionRecording", true],
      ["updateDigitalHuman", true],
    ]);
  });
});

describe("Session (spec 2.1)", () => {
  const session = schemas.Session;
  const fields: [string, { type: string | string[]; format?: string }][] = [
    ["id", { type: "string", format: "uuid" }],
    ["room_name", { type: "string" }],
    ["rtc_url", { type: "string", format: "uri" }],
    ["participant_token", { type: ["string", "null"] }],
    ["created_at", { type: "string", format: "date-time" }],
    ["started_at", { type: ["string", "null"], format: "date-time" }],
    ["ended_at", { type: ["string", "null"], format: "date-time" }],
  ];

  it("has exactly the eight fields, all required, no others", () => {
    expect(Object.keys(session.properties).sort()).toEqual([...fields.map(([f]) => f), "status"].sort());
    expect([...session.required].sort()).toEqual(Object.keys(session.properties).sort());
    expect(session.additionalProperties).toBe(false);
  });

  it.each(fields)("%s has the specified type", (field, want) => {
    expect(session.properties[field]).toMatchObject(want);
  });

  it("status takes exactly the five states", () => {
    expect(resolve(session.properties.status).enum).toEqual(["created", "active", "completed", "failed", "cancelled"]);
  });
});

describe("SessionCreate (spec 2.2)", () => {
  const create = schemas.SessionCreate;
  it("allows no other properties and requires none", () => {
    expect(create.additionalProperties).toBe(false);
    expect(create.required).toBeUndefined();
    expect(Object.keys(create.properties).sort()).toEqual(["digital_human_id", "metadata", "participant_identity", "tags"]);
  });
  it.each([
    ["participant_identity", { type: "string", minLength: 1, maxLength: 100 }],
    ["digital_human_id", { type: "string", format: "uuid" }],
    ["tags", { type: "array", maxItems: 20, items: { type: "string" } }],
    ["metadata", { type: "object", additionalProperties: true }],
  ])("%s is constrained as specified", (field, want) => {
    expect(create.properties[field]).toMatchObject(want);
  });
});

describe("ApiError (spec 2.3)", () => {
  it("requires code, detail and request_id; detail is any JSON value", () => {
    const error = schemas.ApiError;
    expect([...error.required].sort()).toEqual(["code", "detail", "request_id"]);
    // The specification's `code: string`: one of ErrorCode or a code added later. `type: string` beside the
    // anyOf makes generators type the field as a string (without it, oapi-codegen makes a Go union type).
    expect(error.properties.code.type).toBe("string");
    expect(error.properties.code.anyOf).toEqual([{ $ref: "#/components/schemas/ErrorCode" }, expect.objectContaining({ type: "string" })]);
    expect(schemas.ErrorCode.type).toBe("string");
    const request_id = "req_8f14e45fceea167a5a36dedd4bea2543";
    expect(valid("ApiError", { code: "validation_failed", detail: [], request_id })).toBe(true);
    expect(valid("ApiError", { code: "a_code_added_later", detail: "x", request_id })).toBe(true);
    expect(valid("ApiError", { code: "Not A Code", detail: "x", request_id })).toBe(false);
    expect(error.properties.request_id.type).toBe("string");
    expect(error.properties.detail.type).toBeUndefined();
  });
});

describe("SessionSummary", () => {
  it("never carries a token", () => {
    expect(schemas.SessionSummary.properties).not.toHaveProperty("participant_token");
    expect(schemas.SessionSummary.additionalProperties).toBe(false);
  });
});

/** The webhook endpoint operations: scopes `webhooks:read` / `webhooks:write`, 404 for other accounts'. */
function webhookOperations(): [string, { method: string; path: string; scopes: string[]; success: string; errors: string[] }][] {
  const base = "/v1/webhook-endpoints";
  const one = `${base}/{endpoint_id}`;
  const read = ["webhooks:read"];
  const write = ["webhooks:write"];
  const common = ["401", "403", "429", "503", "default"];
  return [
    ["createWebhookEndpoint", { method: "post", path: base, scopes: write, success: "201", errors: [...common, "413", "422"] }],
    ["listWebhookEndpoints", { method: "get", path: base, scopes: read, success: "200", errors: common }],
    ["getWebhookEndpoint", { method: "get", path: one, scopes: read, success: "200", errors: [...common, "404"] }],
    ["deleteWebhookEndpoint", { method: "delete", path: one, scopes: write, success: "200", errors: [...common, "404"] }],
    [
      "rotateWebhookEndpointSecret",
      { method: "post", path: `${one}/rotate-secret`, scopes: write, success: "200", errors: [...common, "404"] },
    ],
    ["enableWebhookEndpoint", { method: "post", path: `${one}/enable`, scopes: write, success: "200", errors: [...common, "404"] }],
    ["testWebhookEndpoint", { method: "post", path: `${one}/test`, scopes: write, success: "202", errors: [...common, "404"] }],
    [
      "listWebhookDeliveries",
      { method: "get", path: `${one}/deliveries`, scopes: read, success: "200", errors: [...common, "404", "422"] },
    ],
  ];
}

describe("test mode", () => {
  it("the test helpers are kept to test keys, and only they are", () => {
    const keptToTest = Object.values<Json>(doc.paths)
      .flatMap((item) => Object.values<Json>(item))
      .filter((op) => op?.["x-key-modes"] !== undefined);
    expect(keptToTest.map((op) => [op.operationId, op["x-key-modes"], op.tags])).toEqual([
      ["callTestTool", ["test"], ["Test helpers"]],
      ["setTestSessionAnalysis", ["test"], ["Test helpers"]],
      ["sendTestSessionEvent", ["test"], ["Test helpers"]],
    ]);
  });

  it("every key and every event says its mode", () => {
    expect(schemas.Principal.required).toContain("mode");
    expect(schemas.WebhookPayload.required).toContain("mode");
    expect(schemas.Mode.enum).toEqual(["live", "test"]);
  });
});

describe("webhook payloads", () => {
  const payload = {
    type: "webhook.test",
    mode: "test",
    timestamp: "2026-11-22T09:05:00.000Z",
    data: { endpoint_id: "we_5f2b9c1e7a3d4f60b8e1c2d3" },
  };
  const id = "evt_0c9f2b7d1e4a4b6c8d3e5f7a9b1c2d3e";

  it("WebhookEvent is a WebhookPayload and its id, referenced so that generators keep WebhookPayload, and closed", () => {
    // oapi-codegen prunes schemas only the top-level `webhooks` section uses, while it still generates
    // their request body type: WebhookPayload must be reachable from a path.
    expect(schemas.WebhookEvent.allOf).toContainEqual({ $ref: "#/components/schemas/WebhookPayload" });
    expect(valid("WebhookEvent", { id, ...payload })).toBe(true);
    expect(valid("WebhookPayload", payload)).toBe(true);
    expect(valid("WebhookEvent", { id, ...payload, token: "x" })).toBe(false);
    expect(valid("WebhookEvent", payload)).toBe(false);
  });

  it("never carry a token or a secret", () => {
    const walk = (node: Json, seen = new Set<Json>()): string[] => {
      if (node === null || typeof node !== "object" || seen.has(node)) return [];
      seen.add(node);
      const here = node.properties ? Object.keys(node.properties) : [];
      return [...here, ...Object.values<Json>(node).flatMap((child) => walk(resolve(child), seen))];
    };
    const fields = walk(resolve(schemas.WebhookPayload));
    expect(fields).toContain("duration_seconds");
    expect(fields.filter((field) => /token|secret/.test(field))).toEqual([]);
  });

  it("the endpoint's secret is never required: only the create and rotate answers carry it", () => {
    expect(schemas.WebhookEndpoint.required).not.toContain("secret");
    expect(schemas.WebhookEndpointCreate.properties).not.toHaveProperty("secret");
  });

  it("every session event type can be subscribed to, and webhook.test cannot", () => {
    const types = schemas.WebhookEventType.enum.filter((type: string) => type !== "webhook.test");
    expect(schemas.WebhookEventSelector.enum.filter((type: string) => type !== "*")).toEqual(types);
  });
});

describe("DigitalHumanJob (a dispatch's metadata)", () => {
  const job = {
    session_id: "0d9a3c2e-5c4b-4b8a-9a77-0f1e2d3c4b5a",
    account_id: "acct_1",
    digital_human: {
      id: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f",
      name: "Ava",
      appearance: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f",
      instructions: null,
      greeting: "Hello {participant_identity}! I'm {name}.",
      voice: "slt",
      language: "en",
      llm: { model: null, temperature: null },
    },
    participant_identity: "user-4821",
    max_duration_s: 1800,
  };

  it("takes what the service writes, for a live or a test session, and fields added later", () => {
    expect(valid("DigitalHumanJob", job)).toBe(true);
    expect(valid("DigitalHumanJob", { ...job, account_id: "acct_1#test" })).toBe(true);
    expect(valid("DigitalHumanJob", { ...job, later: { greeting: "Hi" } })).toBe(true);
    expect(valid("DigitalHumanJob", { ...job, max_duration_s: 0 })).toBe(false);
  });

  it("carries the whole persona: a digital human without its voice, greeting or instructions is refused", () => {
    for (const field of ["appearance", "instructions", "greeting", "voice", "language", "llm"]) {
      const { [field as "voice"]: _dropped, ...rest } = job.digital_human;
      expect(valid("DigitalHumanJob", { ...job, digital_human: rest }), field).toBe(false);
    }
  });

  it("is linked from the tag of the digital human's operations, whose guide section describes it", () => {
    const tag = doc.tags.find((t: Json) => t.name === "Digital human workers");
    expect(tag["x-digital-human-job"]).toEqual({ $ref: "#/components/schemas/DigitalHumanJob" });
    expect(schemas.DigitalHumanJob["x-tags"]).toEqual(["Digital human workers"]);
    expect(doc.info.description).toContain("# Your own digital human");
  });
});

describe("text people hear or read (one rule: src/shown-text.ts)", () => {
  const identity = (value: string) => valid("SessionCreate", { participant_identity: value });
  const fields: [string, (value: string) => boolean][] = [
    ["DigitalHumanName", (v) => valid("DigitalHumanName", v)],
    ["DigitalHumanDescription", (v) => valid("DigitalHumanDescription", v)],
    ["DigitalHumanInstructions", (v) => valid("DigitalHumanInstructions", v)],
    ["DigitalHumanGreeting", (v) => valid("DigitalHumanGreeting", v)],
    ["SessionCreate.participant_identity", identity],
  ];
  const bidi = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"];

  it.each(fields)("%s refuses every bidirectional control and every control character the rule refuses", async (_name, takes) => {
    const { shownTextProblem } = await import("../src/shown-text.js");
    for (const char of [...bidi, "\u0000", "\u0007", "\u001b", "\u007f"]) {
      expect(shownTextProblem(`Maya${char}`), JSON.stringify(char)).toBeDefined();
      expect(takes(`Maya${char}`), JSON.stringify(char)).toBe(false);
    }
    expect(takes("Maya")).toBe(true);
    expect(shownTextProblem("Maya")).toBeUndefined();
  });
});
