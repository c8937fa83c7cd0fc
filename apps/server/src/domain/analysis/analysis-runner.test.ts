import { describe, expect, it } from "vitest";
import type { StoredSegment } from "../transcripts/transcript.js";
import { runAnalysis } from "./analysis-runner.js";
import type { AnalysisModel, JsonCompletion } from "./ports.js";
import { pendingAnalysis, type StoredAnalysis } from "./stored-analysis.js";

const SEGMENTS: StoredSegment[] = [{ id: "s1", speaker: "participant", text: "My code is aaaa.", startedAtMs: 0, endedAtMs: 900 }];
const codeSchema = (pattern: string, extra: object = {}) => ({
  type: "object",
  additionalProperties: false,
  required: ["code"],
  properties: { code: { type: ["string", "null"], pattern } },
  ...extra,
});
const analysisOf = (dataSchema: Record<string, unknown>) =>
  pendingAnalysis({ summary: false, data_schema: dataSchema, success_criteria: [] }, null, "Lena") as StoredAnalysis;

/** An LLM that answers `answers` in turn (the last one again), and counts what it was asked. */
function llm(...answers: unknown[]): { model: AnalysisModel; asked: JsonCompletion[] } {
  const asked: JsonCompletion[] = [];
  const model: AnalysisModel = {
    completeJson: async (call) => {
      asked.push(call);
      return JSON.stringify(answers[Math.min(asked.length - 1, answers.length - 1)]);
    },
  };
  return { model, asked };
}

describe("an analysis attempt against what a participant or a stored schema can make of it", () => {
  it("fails invalid_answer, in linear time, when the LLM is talked into filling a backtracking pattern's field", async () => {
    const { model, asked } = llm({ data: { code: `${"a".repeat(40)}!` } });
    const result = await runAnalysis(analysisOf(codeSchema("^(a+)+$")), SEGMENTS, { model, defaultModel: "m", timeoutMs: 1000 });
    expect(result).toMatchObject({ kind: "outcome", outcome: { status: "failed", error: { code: "invalid_answer" } } });
    expect(asked).toHaveLength(2);
  });

  it("asks no LLM with a schema kept from before lookaround and $ref loops were refused: invalid_schema, at once", async () => {
    for (const schema of [codeSchema("^(?=a)a+$"), codeSchema("^a+$", { $defs: { a: { anyOf: [{ $ref: "#/$defs/a" }] } } })]) {
      const { model, asked } = llm({ data: { code: "aaaa" } });
      const result = await runAnalysis(analysisOf(schema), SEGMENTS, { model, defaultModel: "m", timeoutMs: 1000 });
      expect(result).toMatchObject({
        kind: "outcome",
        outcome: {
          status: "failed",
          error: { code: "invalid_schema", message: expect.stringMatching(/^The digital human's data_schema cannot be checked/) },
        },
      });
      expect(asked).toHaveLength(0);
    }
  });

  it("keeps nothing of an answer of 8 MB: refused unread, repaired once, then invalid_answer", async () => {
    const { model, asked } = llm({ data: { code: "a".repeat(8 * 1024 * 1024) } });
    const result = await runAnalysis(analysisOf(codeSchema("^a+$")), SEGMENTS, { model, defaultModel: "m", timeoutMs: 1000 });
    expect(result).toMatchObject({
      kind: "outcome",
      outcome: { status: "failed", error: { code: "invalid_answer", message: expect.stringMatching(/more than 65536/) } },
    });
    expect(asked).toHaveLength(2);
  });
});
