import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { initializeLogger } from "@livekit/agents";
import { describe, expect, it } from "vitest";
import { missingFrameworkInternals, recordedFile, WRITTEN_AGAINST } from "./framework-internals.js";

initializeLogger({ pretty: false, level: "silent" });

describe("the framework's private fields the worker relies on", () => {
  it("are there in the agents framework this worker is built with, the version they were read from", () => {
    expect(missingFrameworkInternals()).toEqual([]);
    // An upgrade fails here first: reread the two fields' use in the new version, then move the name.
    const main = createRequire(import.meta.url).resolve("@livekit/agents");
    const { version } = JSON.parse(readFileSync(join(dirname(main), "..", "package.json"), "utf8")) as { version: string };
    expect(WRITTEN_AGAINST).toBe(`@livekit/agents ${version}`);
  });

  it("are named when a session lacks them, as after an upgrade that renamed them", () => {
    expect(missingFrameworkInternals(() => ({ _roomIO: undefined, _recorderIOv2: undefined }))).toEqual(["AgentSession._recorderIO"]);
    expect(missingFrameworkInternals(() => ({}))).toEqual(["AgentSession._roomIO", "AgentSession._recorderIO"]);
  });

  it("gives the recorder's file only when it wrote one", () => {
    expect(recordedFile(undefined)).toBeUndefined();
    const at = (recorder: unknown) => recordedFile({ _recorderIO: recorder } as never);
    expect(at(undefined)).toBeUndefined();
    expect(at({ outputPath: "" })).toBeUndefined();
    expect(at({ outputPath: "/jobs/j1/audio.ogg" })).toBe("/jobs/j1/audio.ogg");
  });
});
