import { describe, expect, it } from "vitest";
import { ACCOUNT_ID_PATTERN, API_KEY_PREFIX, ApiKeyRing, dataOwner, generateApiKey, hashApiKey, isMode, modeOfOwner } from "./api-keys.js";

const secret = "dhs_unit_secret";
const ring = new ApiKeyRing([
  { id: "key_1", account_id: "acct_1", scopes: ["sessions:read"], sha256: hashApiKey(secret).toString("hex").toUpperCase() },
]);

describe("ApiKeyRing", () => {
  it("finds the principal of a known secret, whatever the case of the stored hash", () => {
    const principal = ring.authenticate(secret);
    expect(principal).toMatchObject({ keyId: "key_1", accountId: "acct_1", account: "acct_1", mode: "live" });
    expect([...(principal?.scopes ?? [])]).toEqual(["sessions:read"]);
  });

  it.each(["", "dhs_unit_secreT", `${secret} `, hashApiKey(secret).toString("hex")])("refuses %j", (presented) => {
    expect(ring.authenticate(presented)).toBeUndefined();
  });
});

describe("test keys", () => {
  const testRing = new ApiKeyRing([
    { id: "key_t", account_id: "acct_1", scopes: ["sessions:read"], sha256: hashApiKey("dhs_test_x").toString("hex"), mode: "test" },
    { id: "key_l", account_id: "acct_1", scopes: ["sessions:read"], sha256: hashApiKey("dhs_live_x").toString("hex"), mode: "live" },
  ]);

  it("own the account's test side: the same account, another owner of data", () => {
    expect(testRing.authenticate("dhs_test_x")).toMatchObject({ account: "acct_1", mode: "test", accountId: dataOwner("acct_1", "test") });
    expect(testRing.authenticate("dhs_live_x")).toMatchObject({ account: "acct_1", mode: "live", accountId: "acct_1" });
    expect(dataOwner("acct_1", "test")).not.toBe("acct_1");
  });

  it.each([
    ["live", true],
    ["test", true],
    ["Test", false],
    ["", false],
    [undefined, false],
    [1, false],
  ])("isMode(%o) is %s", (value, expected) => {
    expect(isMode(value)).toBe(expected);
  });

  it("have an owner id that no account can have, and whose mode is read back", () => {
    const owner = dataOwner("acct_1", "test");
    expect(ACCOUNT_ID_PATTERN.test(owner)).toBe(false);
    expect(modeOfOwner(owner)).toBe("test");
    expect(modeOfOwner("acct_1")).toBe("live");
    // An account whose own id looks like a test side is refused by the pattern, so it cannot be one.
    expect(ACCOUNT_ID_PATTERN.test("acct_1#test")).toBe(false);
  });
});

describe("generateApiKey", () => {
  it.each(["live", "test"] as const)("makes %s 256-bit secrets with their mode in the prefix, that never repeat", (mode) => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey(mode)));
    expect(keys.size).toBe(1000);
    for (const key of keys) expect(key).toMatch(new RegExp(`^${API_KEY_PREFIX}${mode}_[A-Za-z0-9_-]{43}$`));
  });
});
