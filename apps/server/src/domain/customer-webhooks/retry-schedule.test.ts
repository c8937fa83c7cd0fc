import { describe, expect, it } from "vitest";
import { RETRY_AFTER_CAP_MS, RetrySchedule, STANDARD_RETRY_DELAYS_S } from "./retry-schedule.js";

describe("RetrySchedule", () => {
  it("follows Standard Webhooks' schedule: eight attempts, the last 10 h after the one before", () => {
    const exact = new RetrySchedule(STANDARD_RETRY_DELAYS_S, () => 0.5);
    expect(exact.attempts).toBe(8);
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => exact.nextDelayMs(n, null))).toEqual(STANDARD_RETRY_DELAYS_S.map((s) => s * 1000));
    expect(exact.nextDelayMs(8, null)).toBeNull();
  });

  it("varies each delay by up to 20% either way", () => {
    expect(new RetrySchedule([10], () => 0).nextDelayMs(1, null)).toBe(8000);
    expect(new RetrySchedule([10], () => 0.999_999).nextDelayMs(1, null)).toBe(12_000);
  });

  it("never retries sooner than a Retry-After asks, up to 10 hours", () => {
    const schedule = new RetrySchedule([5], () => 0.5);
    expect(schedule.nextDelayMs(1, 60_000)).toBe(60_000);
    expect(schedule.nextDelayMs(1, 1000)).toBe(5000);
    expect(schedule.nextDelayMs(1, 7 * 86_400_000)).toBe(RETRY_AFTER_CAP_MS);
  });

  it("keeps an event at least as long as its attempts can take", () => {
    const schedule = new RetrySchedule(STANDARD_RETRY_DELAYS_S);
    expect(schedule.horizonMs(10_000)).toBeGreaterThanOrEqual(STANDARD_RETRY_DELAYS_S.length * RETRY_AFTER_CAP_MS);
  });
});
