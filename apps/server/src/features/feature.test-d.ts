import type { ApiKeyOperationId, DigitalHumanOperationId } from "@dhs/contract";
import { describe, expectTypeOf, it } from "vitest";
import type { FeatureTimerHandlers } from "../domain/sessions/feature-timers.js";
import type { DigitalHumanOperationHandlers, OperationHandlers } from "../http/operations.js";
import { assembleFeatures, type Feature, type Unanswered } from "./feature.js";

declare const operations: OperationHandlers;
declare const digitalHumanOperations: DigitalHumanOperationHandlers;
declare const timers: FeatureTimerHandlers;
declare const memories: Pick<OperationHandlers, "getParticipantMemory" | "deleteParticipantMemory">;
declare const recordingTimer: Pick<FeatureTimerHandlers, "recording">;

const everything = { name: "everything", operations, digitalHumanOperations, timers } satisfies Feature;

describe("a list of features", () => {
  it("that answers everything leaves nothing unanswered", () => {
    expectTypeOf<Unanswered<[typeof everything]>>().toEqualTypeOf<never>();
    assembleFeatures([everything]);
  });

  it("that lacks a feature names what nobody answers: the API keys' operations, the digital human's and the timers", () => {
    type Lacking = readonly [{ name: "memories"; operations: typeof memories; timers: typeof recordingTimer }];
    expectTypeOf<Unanswered<Lacking>>().toEqualTypeOf<
      | Exclude<ApiKeyOperationId, "getParticipantMemory" | "deleteParticipantMemory">
      | DigitalHumanOperationId
      | Exclude<keyof FeatureTimerHandlers, "recording">
    >();
    // @ts-expect-error nothing answers createSession (nor the rest): the error lists them
    assembleFeatures([{ name: "memories", operations: memories, timers: recordingTimer }]);
  });

  it("counts a feature's background work and close as optional", () => {
    assembleFeatures([everything, { name: "quiet", background: [undefined], close: () => undefined }]);
  });
});
