import { describe, expect, it } from "vitest";
import { MemorySessionStore } from "../../store/memory/session-store.js";
import { DigitalHumanCatalog } from "../digital-humans/digital-human-catalog.js";
import { AccountLimits } from "./account-limits.js";
import { AccountService } from "./account-service.js";
import type { Principal } from "./api-keys.js";

const AVA = { id: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f", name: "Ava", agent_name: "ava" };
const LEO = { id: "0b8e4d1c-2a3f-4e5d-8c7b-9a0f1e2d3c4b", name: "Leo", agent_name: "leo" };
const principal: Principal = { keyId: "k", accountId: "acct_1", account: "acct_1", mode: "live", scopes: new Set(["sessions:read"]) };

describe("AccountService", () => {
  const catalog = new DigitalHumanCatalog([AVA, LEO]);
  const service = new AccountService({
    store: new MemorySessionStore(),
    catalog,
    accounts: new AccountLimits(20, [{ id: "acct_1", max_open_sessions: 3 }]),
    rateLimit: undefined,
    now: () => new Date("2026-11-23T12:00:00.000Z"),
  });

  it("pages the catalog, and a cursor whose entry left it since ends the list instead of starting it again", () => {
    expect(service.digitalHumans(principal, 1, undefined)).toEqual({ items: [expect.objectContaining({ name: "Ava" })], next: AVA.id });
    expect(service.digitalHumans(principal, 1, AVA.id).items.map((d) => d.name)).toEqual(["Leo"]);
    expect(service.digitalHumans(principal, 1, "00000000-0000-4000-8000-000000000000")).toEqual({ items: [], next: null });
  });

  it("shows the account's own limit, and null rate limits when there are none", async () => {
    expect((await service.principal(principal)).limits).toEqual({ open_sessions: 3, requests_per_second: null, burst: null });
  });

  it("defaults the usage range to the last 30 UTC days", async () => {
    const usage = await service.usage(principal, undefined, undefined);
    expect([usage.from, usage.to, usage.days.length]).toEqual(["2026-10-25", "2026-11-23", 30]);
  });
});
