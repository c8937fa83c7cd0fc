/**
 * Who an API key is (GET /v1/me), through the client; the credentials a client would never send (no
 * header, other schemes, the scheme in lower case) as raw requests.
 */
import { describe, expect, it } from "vitest";
import { expectApiError, expectData, KEYS, useHarness } from "../support/harness.js";

const h = useHarness();

describe("GET /v1/me", () => {
  it.each([
    ["a read-write key", KEYS.a, { key_id: "key_a", account_id: "acct_a", mode: "live", scopes: ["sessions:read", "sessions:write"] }],
    ["a read-only key", KEYS.aRead, { key_id: "key_a_read", account_id: "acct_a", mode: "live", scopes: ["sessions:read"] }],
    ["a write-only key", KEYS.aWrite, { key_id: "key_a_write", account_id: "acct_a", mode: "live", scopes: ["sessions:write"] }],
    ["another account's key", KEYS.b, { key_id: "key_b", account_id: "acct_b", mode: "live", scopes: ["sessions:read", "sessions:write"] }],
  ])("with %s answers its key id, account and scopes, and the account's limits and use", async (_name, key, principal) => {
    const body = expectData(await h.client(key).getPrincipal());
    expect(body).toMatchObject(principal);
    expect(Object.keys(body).sort()).toEqual(["account_id", "key_id", "limits", "mode", "scopes", "usage"]);
    expect(body.limits).toEqual({ open_sessions: 100_000, requests_per_second: 100, burst: 200 });
    expect(body.usage).toEqual({ open_sessions: expect.any(Number) });
  });

  it.each([
    ["no Authorization header", null, {}],
    ["an unknown key", "dhs_unknown", {}],
    ["another scheme", null, { Authorization: `Basic ${Buffer.from(`${KEYS.a}:`).toString("base64")}` }],
    ["a bearer without a key", null, { Authorization: "Bearer " }],
    ["the key's hash instead of the key", null, { Authorization: "Bearer 1f3c" }],
  ] as const)("with %s answers 401 unauthorized with WWW-Authenticate", async (_name, key, headers) => {
    const res = await h.request("GET", "/v1/me", { key, headers: { ...headers } });
    await expectApiError(res, 401, "unauthorized");
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
  });

  it("accepts the scheme in any case", async () => {
    const res = await h.request("GET", "/v1/me", { key: null, headers: { Authorization: `bearer ${KEYS.a}` } });
    expect(res.status).toBe(200);
  });
});
