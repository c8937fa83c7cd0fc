import { describe, expect, it } from "vitest";
import { sleep, until } from "./until.js";

describe("until", () => {
  it("resolves with the first truthy value", async () => {
    let calls = 0;
    expect(await until(async () => ++calls >= 3 && calls, { everyMs: 1 })).toBe(3);
  });

  it("rejects after the timeout, naming what it waited for", async () => {
    await expect(until(async () => false, { timeoutMs: 30, what: "nothing", everyMs: 5 })).rejects.toThrow(
      /timed out after 30 ms waiting for nothing/,
    );
  });

  it("takes a bare timeout", async () => {
    await expect(until(async () => undefined, 20)).rejects.toThrow(/after 20 ms/);
  });
});

describe("sleep", () => {
  it("waits at least as long as asked", async () => {
    const started = performance.now();
    await sleep(30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });
});
