import { describe, expect, it } from "vitest";
import { API_KEY_PREFIX, ApiKeyRing, generateApiKey, hashApiKey } from "./api-keys.js";

const secret = "dhs_unit_secret";
const ring = new ApiKeyRing([
  { id: "key_1", account_id: "acct_1", scopes: ["sessions:read"], sha256: hashApiKey(secret).toString("hex").toUpperCase() },
]);

describe("ApiKeyRing", () => {
  it("finds the principal of a known secret, whatever the case of the stored hash", () => {
    const principal = ring.authenticate(secret);
    expect(principal).toMatchObject({ keyId: "key_1", accountId: "acct_1" });
    expect([...(principal?.scopes ?? [])]).toEqual(["sessions:read"]);
  });

  it.each(["", "dhs_unit_secreT", `${secret} `, hashApiKey(secret).toString("hex")])("refuses %j", (presented) => {
    expect(ring.authenticate(presented)).toBeUndefined();
  });
});

describe("generateApiKey", () => {
  it("makes prefixed 256-bit secrets that never repeat", () => {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKey));
    expect(keys.size).toBe(1000);
    for (const key of keys) expect(key).toMatch(new RegExp(`^${API_KEY_PREFIX}[A-Za-z0-9_-]{43}$`));
  });
});
