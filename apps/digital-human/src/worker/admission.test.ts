import { describe, expect, it } from "vitest";
import { Admission } from "./admission.js";

function admission(cpu = 0, limits = {}) {
  const clock = { now: 0, cpu };
  const subject = new Admission(
    { maxJobs: 4, threshold: 0.7, startTimeoutMs: 30_000, ...limits },
    () => clock.cpu,
    () => clock.now,
  );
  return { subject, clock };
}

describe("Admission", () => {
  it("accepts a job on an idle worker, whatever the CPUs say (it is the least busy worker there is)", () => {
    const { subject } = admission(1);
    expect(subject.decide("j1", [])).toEqual({ accept: true });
  });

  it("refuses a second job while the first is still waiting for a job process", () => {
    const { subject } = admission();
    subject.decide("j1", []);
    expect(subject.decide("j2", [])).toEqual({ accept: false, reason: "starting" });
    // Once the first runs in a process, the next may start.
    expect(subject.decide("j2", ["j1"])).toEqual({ accept: true });
  });

  it("refuses a job while the CPUs are busier than the limit, and takes it again once they are not", () => {
    const { subject, clock } = admission(0.75);
    expect(subject.decide("j2", ["j1"])).toEqual({ accept: false, reason: "cpu" });
    clock.cpu = 0.5;
    expect(subject.decide("j2", ["j1"])).toEqual({ accept: true });
  });

  it("refuses past maxJobs, counting jobs that are starting", () => {
    const { subject } = admission();
    expect(subject.decide("j4", ["j1", "j2", "j3"])).toEqual({ accept: true });
    expect(subject.decide("j5", ["j1", "j2", "j3", "j4"])).toEqual({ accept: false, reason: "full" });
  });

  it("stops counting a job as starting once it was seen running, even after it ended before the next request", () => {
    const { subject } = admission();
    subject.decide("j1", []);
    // The worker's look while j1 ran; by the next request j1 has ended.
    subject.observe(["j1"]);
    expect(subject.decide("j2", [])).toEqual({ accept: true });
  });

  it("stops counting a job as starting once startTimeoutMs passed (its process never came)", () => {
    const { subject, clock } = admission();
    subject.decide("j1", []);
    clock.now = 30_001;
    expect(subject.decide("j2", [])).toEqual({ accept: true });
  });

  it.each([
    ["idle: never full, whatever the CPUs say", 1, [], 0],
    ["by jobs: one of four, of the 0.7 at which it is full", 0, ["j1"], 0.175],
    ["by CPU, past the jobs' share", 0.4, ["j1"], 0.4],
    ["full (at the threshold) once the CPUs are that busy", 0.75, ["j1"], 0.75],
    ["full (at the threshold) at maxJobs", 0, ["j1", "j2", "j3", "j4"], 0.7],
  ])("reports a load of %s", (_name, cpu, running, load) => {
    const { subject } = admission(cpu as number);
    expect(subject.load(running as string[])).toBeCloseTo(load as number);
  });

  it("counts a job that is starting in the load it reports", () => {
    const { subject } = admission();
    subject.decide("j1", []);
    expect(subject.load([])).toBeCloseTo(0.175);
  });
});
