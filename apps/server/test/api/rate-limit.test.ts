/**
 * Rate limits per API key, an HTTP-level guard: raw requests, whose every answer's status and RateLimit
 * headers are checked (a client would also retry a 429 that a test must see).
 */
import { describe, expect, it } from "vitest";
import { expectApiError, KEYS, startHarness, useHarness } from "../support/harness.js";

// 5 requests a second, up to 8 at once: small enough to cross in a test, big enough to see both limits.
const h = useHarness({ RATE_LIMIT_PER_SECOND: "5", RATE_LIMIT_BURST: "8" });
const off = useHarness({ RATE_LIMIT_ENABLED: "false", RATE_LIMIT_PER_SECOND: "1", RATE_LIMIT_BURST: "1" });

describe("rate limits per API key", () => {
  it("let a key burst to its limit, then answer 429 rate_limited with Retry-After and RateLimit headers", async () => {
    // The limit is per second: the ten must all be counted within one. On a machine too busy for that
    // (a CI run beside other work), wait for the allowance to refill and send them again.
    let responses: Response[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const started = performance.now();
      responses = await Promise.all(Array.from({ length: 10 }, () => h.request("GET", "/v1/me", { key: KEYS.aOther })));
      if (performance.now() - started < 900) break;
      responses = [];
      await new Promise((resolve) => setTimeout(resolve, 10_500));
    }
    expect(responses, "ten requests answered within a second").toHaveLength(10);
    const allowed = responses.filter((res) => res.status === 200);
    expect(allowed).toHaveLength(8);
    expect(responses.filter((res) => res.status === 429)).toHaveLength(2);
    expect(allowed.every((res) => res.headers.get("RateLimit-Limit") === "5")).toBe(true);
    // The first of the second's five leaves 4; the burst's three come after the five.
    const remaining = allowed.map((res) => Number(res.headers.get("RateLimit-Remaining")));
    expect(Math.max(...remaining)).toBe(4);
    expect(remaining.every((n) => n >= 0 && n <= 4)).toBe(true);
    const limited = responses.find((res) => res.status === 429) as Response;
    const error = await expectApiError(limited, 429, "rate_limited");
    expect(error.detail).toMatch(/5 requests per second/);
    expect(Number(limited.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("RateLimit-Limit")).toBe("5");
    expect(limited.headers.get("RateLimit-Remaining")).toBe("0");
    expect(Number(limited.headers.get("RateLimit-Reset"))).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it("count each key on its own: another key of the same account is not limited", async () => {
    for (let i = 0; i < 10; i++) await h.request("GET", "/v1/me", { key: KEYS.aRead });
    expect((await h.request("GET", "/v1/me", { key: KEYS.b })).status).toBe(200);
  });

  it("let the key in again after Retry-After", async () => {
    // Until the first 429: on a busy machine one request after another can be slow enough for the
    // allowance to refill, so a fixed count would not say when the limit is reached.
    let last: Response | undefined;
    for (let i = 0; i < 60 && last?.status !== 429; i++) last = await h.request("GET", "/v1/me", { key: KEYS.aWrite });
    expect(last?.status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, Number(last?.headers.get("Retry-After")) * 1000 + 50));
    expect((await h.request("GET", "/v1/me", { key: KEYS.aWrite })).status).toBe(200);
  });

  it("count what a key may not do too: its 403s carry RateLimit headers, and past the limit it gets 429", async () => {
    const scoped = await startHarness({ RATE_LIMIT_PER_SECOND: "5", RATE_LIMIT_BURST: "8" });
    try {
      // Until the first 429 (a fixed count could let the allowance refill on a busy machine): were a
      // 403 not counted, none would come.
      const responses: Response[] = [];
      for (let i = 0; i < 60 && responses.at(-1)?.status !== 429; i++)
        responses.push(
          await scoped.request("POST", "/v1/sessions", { key: KEYS.aRead, body: {}, headers: { "Idempotency-Key": `k${i}` } }),
        );
      const forbidden = responses[0] as Response;
      await expectApiError(forbidden, 403, "forbidden");
      expect(forbidden.headers.get("RateLimit-Limit")).toBe("5");
      expect(forbidden.headers.get("RateLimit-Remaining")).toBe("4");
      const statuses = responses.map((res) => res.status);
      expect(statuses.at(-1)).toBe(429);
      expect(statuses.slice(0, -1).every((status) => status === 403)).toBe(true);
      expect(statuses.length).toBeGreaterThanOrEqual(9);
    } finally {
      await scoped.close();
    }
  });

  it("answer a request without a valid key 401, before any limit", async () => {
    await expectApiError(await h.request("GET", "/v1/me", { key: null }), 401, "unauthorized");
  });

  it("are off with RATE_LIMIT_ENABLED=false, and then send no RateLimit headers", async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await off.request("GET", "/v1/me")).status);
    expect(statuses).toEqual(Array(5).fill(200));
    expect((await off.request("GET", "/v1/me")).headers.get("RateLimit-Limit")).toBeNull();
  });
});
