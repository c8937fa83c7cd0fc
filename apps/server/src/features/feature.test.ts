import { operationList } from "@dhs/contract";
import { describe, expect, it } from "vitest";
import { FEATURE_TIMERS, type FeatureTimerHandlers } from "../domain/sessions/feature-timers.js";
import type { DigitalHumanOperationHandlers, OperationHandlers } from "../http/operations.js";
import { assembleFeatures, type Background } from "./feature.js";

// Tables whose handlers are never called: assembling only reads their names.
const unused = () => {
  throw new Error("not called");
};
const tableOf = <T>(names: readonly string[]): T => Object.fromEntries(names.map((name) => [name, unused])) as T;

const apiKeys = operationList.filter((op) => op.scheme === "bearerAuth").map((op) => op.operationId);
const digitalHuman = operationList.filter((op) => op.scheme === "digitalHumanToken").map((op) => op.operationId);
const all = {
  name: "all",
  operations: tableOf<OperationHandlers>(apiKeys),
  digitalHumanOperations: tableOf<DigitalHumanOperationHandlers>(digitalHuman),
  timers: tableOf<FeatureTimerHandlers>(FEATURE_TIMERS),
};

/** Background work that records its start and stop in `log`, and stops only when `release` is called. */
function work(name: string, log: string[]) {
  let release = () => {};
  const stopped = new Promise<void>((resolve) => {
    release = resolve;
  });
  const background: Background = {
    start: () => log.push(`${name} started`),
    stop: async () => {
      log.push(`${name} stopping`);
      await stopped;
      log.push(`${name} stopped`);
    },
  };
  return { background, release };
}

describe("assembling the features", () => {
  it("refuses an operation two features answer, naming both", () => {
    const twice = { name: "memories again", operations: { getParticipantMemory: all.operations.getParticipantMemory } };
    expect(() => assembleFeatures([all, twice])).toThrow("getParticipantMemory is answered by two features: all and memories again");
  });

  it("refuses a timer two features fire", () => {
    const twice = { name: "late", timers: { recording: all.timers.recording } };
    expect(() => assembleFeatures([all, twice])).toThrow("recording is answered by two features: all and late");
  });

  it("refuses, at run time, a list a cast made look complete", () => {
    const { createSession: _left, ...rest } = all.operations;
    const hidden = { ...all, operations: rest as OperationHandlers };
    expect(() => assembleFeatures([hidden])).toThrow("no feature answers createSession");
  });

  it("keeps the features' routes in their order", () => {
    const [a, b] = [(() => {}) as never, (() => {}) as never];
    expect(assembleFeatures([all, { name: "a", routes: a }, { name: "none" }, { name: "b", routes: b }]).routes).toEqual([a, b]);
  });

  it("starts every background work; stops them all at once, then closes the features last first", async () => {
    const log: string[] = [];
    const first = work("dispatcher", log);
    const second = work("processor", log);
    const features = assembleFeatures([
      { ...all, background: [first.background], close: () => void log.push("all closed") },
      { name: "knowledge", background: [second.background, undefined], close: async () => void log.push("knowledge closed") },
    ]);
    features.start();
    expect(log).toEqual(["dispatcher started", "processor started"]);
    const stopping = features.stop();
    // Both were asked to stop before either finished; nothing closed while work is in flight.
    await Promise.resolve();
    expect(log.slice(2)).toEqual(["dispatcher stopping", "processor stopping"]);
    second.release();
    first.release();
    await stopping;
    expect(log.slice(4)).toEqual(["processor stopped", "dispatcher stopped", "knowledge closed", "all closed"]);
  });
});
