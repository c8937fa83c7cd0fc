/**
 * Scopes cannot be dodged by spelling a path another way. For every operation the contract defines (read
 * from the contract when the test runs, so a new operation is covered without editing this file), the
 * request is sent on variants of its path: other letter case, a trailing slash, a doubled slash,
 * percent-encoded letters. Each goes out on the raw socket path (fetch would normalise some), with keys of
 * every scope set. A variant of the path's literal text is an unknown route (404) and reaches no handler;
 * on the exact path, a handler is reached only by a key that holds the operation's scopes, and of a mode
 * the operation allows (the contract's `x-key-modes`: the test helpers take test keys only).
 */

import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { openapiDocumentPath, scopeValues } from "@dhs/contract";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { parse } from "yaml";
import { DIGITAL_HUMANS, expectData, KEYS, useHarness } from "../support/harness.js";

type Operation = { operationId: string; security?: Record<string, string[]>[]; "x-key-modes"?: string[] };
const contract = parse(readFileSync(openapiDocumentPath, "utf8")) as {
  security?: Record<string, string[]>[];
  paths: Record<string, Record<string, Operation>>;
};
const METHODS = ["get", "put", "post", "delete", "patch"];
const operations = Object.entries(contract.paths).flatMap(([template, item]) =>
  Object.entries(item)
    .filter(([method]) => METHODS.includes(method))
    .map(([method, operation]) => ({
      id: operation.operationId,
      method: method.toUpperCase(),
      template,
      // Alternatives (OpenAPI's list of requirements): a key passes with every scope of one of them.
      requirements: (operation.security ?? contract.security ?? []).map((requirement) => Object.values(requirement).flat()),
      modes: operation["x-key-modes"] ?? ["live", "test"],
    })),
);

const KEY_SETS = [
  { name: "read and write", key: KEYS.a, scopes: ["sessions:read", "sessions:write"], mode: "live" },
  { name: "read only", key: KEYS.aRead, scopes: ["sessions:read"], mode: "live" },
  { name: "write only", key: KEYS.aWrite, scopes: ["sessions:write"], mode: "live" },
  { name: "webhooks read and write", key: KEYS.aHooks, scopes: ["webhooks:read", "webhooks:write"], mode: "live" },
  { name: "webhooks read only", key: KEYS.aHooksRead, scopes: ["webhooks:read"], mode: "live" },
  { name: "digital humans read and write", key: KEYS.aPersonas, scopes: ["digital_humans:read", "digital_humans:write"], mode: "live" },
  { name: "digital humans read only", key: KEYS.aPersonasRead, scopes: ["digital_humans:read"], mode: "live" },
  { name: "knowledge read and write", key: KEYS.aKnowledge, scopes: ["knowledge:read", "knowledge:write"], mode: "live" },
  { name: "knowledge read only", key: KEYS.aKnowledgeRead, scopes: ["knowledge:read"], mode: "live" },
  {
    name: "test mode, every scope",
    key: KEYS.aTest,
    scopes: [...scopeValues],
    mode: "test",
  },
];

/** Variants of a path's literal text: none of them is the operation's path. */
function literalVariants(path: string): string[] {
  const variants = new Set<string>([path.toUpperCase(), `${path}/`, `${path}//`, path.replace("/v1/", "/v1//"), `/${path}`]);
  const segments = path.split("/");
  segments.forEach((segment, i) => {
    if (!/^[a-z]+$/.test(segment)) return;
    const swap = (s: string) => segments.map((x, j) => (j === i ? s : x)).join("/");
    variants.add(swap(segment.charAt(0).toUpperCase() + segment.slice(1)));
    variants.add(swap(`%${segment.charCodeAt(0).toString(16)}${segment.slice(1)}`));
    variants.add(swap(`%${segment.charCodeAt(0).toString(16).toUpperCase()}${segment.slice(1)}`));
    variants.add(swap(`${segment};x=1`));
  });
  return [...variants];
}

function rawRequest(url: string, method: string, path: string, key: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = method === "POST" ? "{}" : undefined;
    const req = httpRequest(
      `${url}/`,
      {
        method,
        path,
        headers: {
          Authorization: `Bearer ${key}`,
          "Idempotency-Key": crypto.randomUUID(),
          ...(body ? { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const h = useHarness();
let sessionId: string;
let endpointId: string;
let handlerCalls: string[];
beforeAll(async () => {
  sessionId = expectData(await h.client().createSession({}), 201).id;
  // Nothing listens there: test events sent to it fail, which is no concern here.
  endpointId = expectData(await h.client(KEYS.aHooks).createWebhookEndpoint({ url: "http://127.0.0.1:9/hooks" }), 201).id;
  // Every method of the services an operation's handler calls is watched: a call is a handler reached.
  handlerCalls = [];
  for (const target of [h.composed.sessions, h.composed.webhookEndpoints, h.composed.accounts, h.composed.digitalHumans]) {
    const service = target as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const name of Object.getOwnPropertyNames(Object.getPrototypeOf(service))) {
      const method = service[name];
      // The timer sweeper's entry, not an operation's: the session's own timers may fire during the file.
      if (name === "constructor" || name === "onTimer" || typeof method !== "function") continue;
      const original = method.bind(service);
      vi.spyOn(service, name).mockImplementation((...args: unknown[]) => {
        handlerCalls.push(name);
        return original(...args);
      });
    }
  }
});

/** The operation's path with the ids of the session and the webhook endpoint made above. */
const idsIn = (template: string, session: string, endpoint: string) =>
  template.replace("{session_id}", session).replace("{endpoint_id}", endpoint).replace("{digital_human_id}", DIGITAL_HUMANS[0].id);

describe.each(operations)("$id ($method $template)", (operation) => {
  const path = () => idsIn(operation.template, sessionId, endpointId);

  const grants = (scopes: readonly string[]) =>
    operation.requirements.some((requirement) => requirement.every((scope) => scopes.includes(scope)));

  it("the contract gives it a bearer scope requirement", () => {
    expect(operation.requirements.flat().every((scope) => /^[a-z_]+:[a-z]+$/.test(scope))).toBe(true);
  });

  it.each(KEY_SETS)(
    "on the exact path with a $name key, reaches its handler only with its scopes and mode",
    async ({ key, scopes, mode }) => {
      handlerCalls.length = 0;
      const res = await rawRequest(h.url, operation.method, path(), key);
      const allowed = grants(scopes) && operation.modes.includes(mode);
      if (allowed) {
        expect(res.status, res.body).not.toBe(403);
      } else {
        expect(res.status, res.body).toBe(403);
        expect(handlerCalls).toEqual([]);
      }
    },
  );

  it.each(KEY_SETS)("on every variant of its path with a $name key, answers 404 and reaches no handler", async ({ key }) => {
    const answers: string[] = [];
    for (const variant of literalVariants(path())) {
      handlerCalls.length = 0;
      const res = await rawRequest(h.url, operation.method, variant, key);
      if (res.status !== 404 || !res.body.includes('"not_found"') || handlerCalls.length > 0)
        answers.push(`${variant} -> ${res.status} ${handlerCalls.join(",")}`);
    }
    expect(answers).toEqual([]);
  });

  const lacking = KEY_SETS.filter(({ scopes }) => !grants(scopes));
  if (operation.template.includes("{") && lacking.length > 0) {
    it.each(lacking)(
      "with the id percent-encoded and a $name key that lacks its scope, answers 403 and reaches no handler",
      async ({ key }) => {
        handlerCalls.length = 0;
        const percentEncoded = (id: string) => id.replace(/[a-f]/, (c) => `%${c.charCodeAt(0).toString(16)}`);
        const encoded = idsIn(operation.template, percentEncoded(sessionId), percentEncoded(endpointId));
        const res = await rawRequest(h.url, operation.method, encoded, key);
        expect(res.status, res.body).toBe(403);
        expect(handlerCalls).toEqual([]);
      },
    );
  }
});
