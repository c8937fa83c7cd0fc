import { describe, expect, it } from "vitest";
import { MemorySessionStore } from "../../store/memory/session-store.js";
import { AccountLimits } from "./account-limits.js";
import { AccountService } from "./account-service.js";
import type { Principal } from "./api-keys.js";

const principal: Principal = { keyId: "k", accountId: "acct_1", account: "acct_1", mode: "live", scopes: new Set(["sessions:read"]) };

describe("AccountService", () => {
  const service = new AccountService({
    store: new MemorySessionStore(),
    accounts: new AccountLimits(20, [{ id: "acct_1", max_open_sessions: 3 }]),
    rateLimit: undefined,
    now: () => new Date("2026-11-23T12:00:00.000Z"),
  });

  it("shows the account's own limit, and null rate limits when there are none", async () => {
    expect((await service.principal(principal)).limits).toEqual({ open_sessions: 3, requests_per_second: null, burst: null });
  });

  it("defaults the usage range to the last 30 UTC days", async () => {
    const usage = await service.usage(principal, undefined, undefined);
    expect([usage.from, usage.to, usage.days.length]).toEqual(["2026-10-25", "2026-11-23", 30]);
  });
});
