import { AudioFrame } from "@livekit/rtc-node";
import { describe, expect, it } from "vitest";
import { LoudnessGate, WAKE_RMS } from "./loudness-gate.js";

describe("LoudnessGate", () => {
  const frame = (level: number) => new AudioFrame(new Int16Array(160).fill(level), 16_000, 1, 160);

  it("holds quiet frames back, then lets the last 300 ms through with the first loud one", () => {
    const gate = new LoudnessGate();
    for (let i = 0; i < 100; i++) expect(gate.pass(frame(10), false)).toEqual([]);
    const loud = frame(WAKE_RMS * 4);
    const passed = gate.pass(loud, false);
    expect(passed.at(-1)).toBe(loud);
    expect(passed.length).toBeGreaterThanOrEqual(30);
    expect(passed.length).toBeLessThanOrEqual(32);
  });

  it("stays open 1.5 s after the last loud frame, and while the model still hears speech", () => {
    const gate = new LoudnessGate();
    gate.pass(frame(WAKE_RMS * 4), false);
    for (let i = 0; i < 149; i++) expect(gate.pass(frame(0), false)).toHaveLength(1);
    expect(gate.pass(frame(0), false)).toEqual([]);
    expect(gate.pass(frame(0), true)).toHaveLength(2);
  });
});
