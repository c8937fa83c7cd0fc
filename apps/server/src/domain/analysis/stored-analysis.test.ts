import { describe, expect, it } from "vitest";
import { NO_REASON } from "./analysis-answer.js";
import { analysisView, type StoredAnalysis } from "./stored-analysis.js";

describe("analysisView", () => {
  it("shows an analysis stored before reasons and summaries were held to the contract as the contract allows", () => {
    // Stored by a release that kept an LLM's empty reason: every read of it answered 500.
    const stored: StoredAnalysis = {
      settings: { summary: true, data_schema: null, success_criteria: ["Booked", "Polite"] },
      model: null,
      digital_human_name: "Ava",
      status: "complete",
      attempts: 1,
      summary: "",
      data: null,
      success_criteria: [
        { criterion: "Booked", result: "unknown", reason: "" },
        { criterion: "Polite", result: "met", reason: "Said \u202eplease\u0007." },
      ],
      completed_at: "2026-11-29T10:00:00.000Z",
    };
    expect(analysisView("ses_1", stored, false)).toEqual({
      session_id: "ses_1",
      status: "complete",
      summary: null,
      data: null,
      success_criteria: [
        { criterion: "Booked", result: "unknown", reason: NO_REASON },
        { criterion: "Polite", result: "met", reason: "Said please ." },
      ],
      error: null,
      completed_at: "2026-11-29T10:00:00.000Z",
    });
  });
});
