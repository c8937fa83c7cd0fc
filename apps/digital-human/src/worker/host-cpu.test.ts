import { describe, expect, it } from "vitest";
import { HostCpu } from "./host-cpu.js";

describe("HostCpu", () => {
  it("is the share of CPU time used between two samples", () => {
    const readings = [
      { used: 100, capacity: 1000 },
      { used: 400, capacity: 2000 },
      { used: 400, capacity: 3000 },
    ];
    const cpu = new HostCpu(() => readings.shift() ?? { used: 400, capacity: 3000 });
    expect(cpu.load).toBe(0);
    expect(cpu.sample()).toBeCloseTo(0.3);
    expect(cpu.load).toBeCloseTo(0.3);
    expect(cpu.sample()).toBe(0);
    // The load is the mean of the last three samples.
    expect(cpu.load).toBeCloseTo(0.15);
  });

  it("keeps the last value when no time passed between samples", () => {
    const readings = [
      { used: 0, capacity: 0 },
      { used: 50, capacity: 100 },
      { used: 50, capacity: 100 },
    ];
    const cpu = new HostCpu(() => readings.shift() as { used: number; capacity: number });
    cpu.sample();
    expect(cpu.sample()).toBeCloseTo(0.5);
  });

  it("reads this machine's counters: a value between 0 and 1", async () => {
    const cpu = new HostCpu();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const load = cpu.sample();
    expect(load).toBeGreaterThanOrEqual(0);
    expect(load).toBeLessThanOrEqual(1);
  });
});
