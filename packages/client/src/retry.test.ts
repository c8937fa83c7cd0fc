import { describe, expect, it } from "vitest";
import { isSafeToRetry, retryAfterMs, withRetries } from "./retry.js";

describe("isSafeToRetry", () => {
  const cases: [string, { given: Request; want: boolean }][] = [
    ["a GET", { given: new Request("http://x/v1/sessions/1"), want: true }],
    [
      "a create with a key",
      { given: new Request("http://x/v1/sessions", { method: "POST", headers: { "Idempotency-Key": "k" } }), want: true },
    ],
    ["a create without a key", { given: new Request("http://x/v1/sessions", { method: "POST" }), want: false }],
    ["endSession", { given: new Request("http://x/v1/sessions/abc/end", { method: "POST" }), want: true }],
    ["refreshSessionToken", { given: new Request("http://x/v1/sessions/abc/token", { method: "POST" }), want: true }],
    ["another POST", { given: new Request("http://x/v1/other", { method: "POST" }), want: false }],
    ["a DELETE", { given: new Request("http://x/v1/sessions/abc", { method: "DELETE" }), want: false }],
    ["enableWebhookEndpoint", { given: new Request("http://x/v1/webhook-endpoints/we_1/enable", { method: "POST" }), want: true }],
    ["createWebhookEndpoint", { given: new Request("http://x/v1/webhook-endpoints", { method: "POST" }), want: false }],
    [
      "rotateWebhookEndpointSecret",
      { given: new Request("http://x/v1/webhook-endpoints/we_1/rotate-secret", { method: "POST" }), want: false },
    ],
    ["testWebhookEndpoint", { given: new Request("http://x/v1/webhook-endpoints/we_1/test", { method: "POST" }), want: false }],
    ["deleteWebhookEndpoint", { given: new Request("http://x/v1/webhook-endpoints/we_1", { method: "DELETE" }), want: false }],
    ["deleteSessionTranscript", { given: new Request("http://x/v1/sessions/abc/transcript", { method: "DELETE" }), want: true }],
    [
      "appendTranscriptSegments (the digital human worker's: its segments carry their ids)",
      { given: new Request("http://x/v1/sessions/abc/transcript/segments", { method: "POST" }), want: true },
    ],
    [
      "a test event (not safe: it may have been sent)",
      { given: new Request("http://x/v1/webhook-endpoints/we_1/test", { method: "POST" }), want: false },
    ],
    ["a path that only ends like enable", { given: new Request("http://x/v1/sessions/abc/enable", { method: "POST" }), want: false }],
    ["endSession behind a base URL's prefix", { given: new Request("http://x/dhs/v1/sessions/abc/end", { method: "POST" }), want: true }],
    ["a retry-safe path with another method", { given: new Request("http://x/v1/sessions/abc/end", { method: "DELETE" }), want: false }],
    [
      "updateDigitalHuman (the same change twice is one change)",
      { given: new Request("http://x/v1/digital-humans/d1", { method: "PATCH" }), want: true },
    ],
    ["deleteDigitalHuman", { given: new Request("http://x/v1/digital-humans/d1", { method: "DELETE" }), want: false }],
    [
      "createDigitalHuman with a key",
      { given: new Request("http://x/v1/digital-humans", { method: "POST", headers: { "Idempotency-Key": "k" } }), want: true },
    ],
  ];
  it.each(cases)("%s", (_name, { given, want }) => {
    expect(isSafeToRetry(given)).toBe(want);
  });
});

describe("retryAfterMs", () => {
  const now = Date.parse("2026-11-22T10:00:00Z");
  const cases: [string, { given: string | null; want: number | undefined }][] = [
    ["delta seconds", { given: "2", want: 2000 }],
    ["zero", { given: "0", want: 0 }],
    ["an HTTP date", { given: "Sun, 22 Nov 2026 10:00:05 GMT", want: 5000 }],
    ["a date in the past", { given: "Sun, 22 Nov 2026 09:00:00 GMT", want: 0 }],
    ["absent", { given: null, want: undefined }],
    ["garbage", { given: "soon", want: undefined }],
    ["a negative number", { given: "-1", want: undefined }],
  ];
  it.each(cases)("%s", (_name, { given, want }) => {
    const headers: Record<string, string> = given === null ? {} : { "Retry-After": given };
    expect(retryAfterMs(new Response(null, { status: 503, headers }), now)).toBe(want);
  });
});

describe("withRetries backoff", () => {
  it("doubles from the base delay with jitter between half and all of each step, up to the cap", async () => {
    const waits: number[] = [];
    let calls = 0;
    const fetch = withRetries(
      async () => {
        calls++;
        throw new TypeError("fetch failed");
      },
      { maxRetries: 5, timeoutMs: 1000, baseDelayMs: 100, maxDelayMs: 1000, random: () => 1, sleep: async (ms) => void waits.push(ms) },
    );
    await expect(fetch(new Request("http://x/v1/me"))).rejects.toThrow("fetch failed");
    expect(calls).toBe(6);
    expect(waits).toEqual([100, 200, 400, 800, 1000]);
  });

  it("never waits less than half a step", async () => {
    const waits: number[] = [];
    const fetch = withRetries(async () => new Response(null, { status: 503 }), {
      maxRetries: 2,
      timeoutMs: 1000,
      baseDelayMs: 100,
      random: () => 0,
      sleep: async (ms) => void waits.push(ms),
    });
    await fetch(new Request("http://x/v1/me"));
    expect(waits).toEqual([50, 100]);
  });
});
