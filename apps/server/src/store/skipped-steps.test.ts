import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { Metrics } from "../metrics.js";
import { loggedAndCounted, skippable } from "./skipped-steps.js";

describe("a store step left to the repair", () => {
  it("that fails is logged at warn with its step and counted by step, and resolves undefined", async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const metrics = new Metrics();
    const report = loggedAndCounted(pino({ level: "info" }, sink), metrics);
    expect(await skippable(Promise.reject(new Error("WRONGTYPE held")), "open_place_release", report)).toBeUndefined();
    await skippable(Promise.reject(new Error("OOM")), "open_place_release", report);
    await skippable(Promise.reject("not an Error"), "digital_human_claim_release", report);
    expect(lines.map(({ level, msg, step, err }) => ({ level, msg, step, err }))).toEqual([
      { level: 40, msg: "store step skipped", step: "open_place_release", err: expect.objectContaining({ message: "WRONGTYPE held" }) },
      { level: 40, msg: "store step skipped", step: "open_place_release", err: expect.objectContaining({ message: "OOM" }) },
      {
        level: 40,
        msg: "store step skipped",
        step: "digital_human_claim_release",
        err: expect.objectContaining({ message: "not an Error" }),
      },
    ]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('dhs_store_steps_skipped_total{step="open_place_release"} 2');
    expect(text).toContain('dhs_store_steps_skipped_total{step="digital_human_claim_release"} 1');
  });

  it("that succeeds is neither logged nor counted, and resolves with its result", async () => {
    const said: string[] = [];
    expect(await skippable(Promise.resolve(7), "open_place_count", (step) => said.push(step))).toBe(7);
    expect(said).toEqual([]);
  });
});
