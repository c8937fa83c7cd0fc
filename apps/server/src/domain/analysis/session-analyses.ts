/**
 * The analysis operations of API keys (contract guide, "Analysis"): getSessionAnalysis, and the test
 * helper setTestSessionAnalysis, whose outcome is held to what the LLM's would be: the parts the digital
 * human's `analysis` asks for, `data` matching its `data_schema` and each criterion judged once, checked
 * by the same reader as the LLM's answer (analysis-answer.ts).
 */
import type { SessionAnalysis, TestSessionAnalysis } from "@dhs/contract";
import type { Principal } from "../accounts/api-keys.js";
import { AppError } from "../app-error.js";
import { memoryKeyOf } from "../memories/memory-key.js";
import type { ParticipantMemories } from "../memories/participant-memories.js";
import type { SessionRecords } from "../sessions/ports.js";
import { TERMINAL } from "../sessions/session.js";
import { findOwnSession } from "../sessions/session-reader.js";
import { readAnalysisAnswer, uncheckableSchema } from "./analysis-answer.js";
import { analysisRequest } from "./analysis-request.js";
import type { AnalysisService } from "./analysis-service.js";
import type { AnalysisSettings } from "./analysis-settings.js";
import type { AnalysisOutcome } from "./stored-analysis.js";

export class SessionAnalyses {
  constructor(
    private readonly sessions: Pick<SessionRecords, "getSession">,
    private readonly service: AnalysisService,
    /** Where `memory_facts` are kept; without it the helper takes none. */
    private readonly memories?: Pick<ParticipantMemories, "base" | "keep">,
  ) {}

  async read(principal: Principal, sessionId: string): Promise<SessionAnalysis> {
    return this.service.view(await findOwnSession(this.sessions, principal, sessionId));
  }

  async setTest(principal: Principal, sessionId: string, body: TestSessionAnalysis): Promise<SessionAnalysis> {
    const record = await findOwnSession(this.sessions, principal, sessionId);
    if (!record.analysis) throw new AppError("analysis_not_requested", `Session ${record.id}'s digital human has no analysis.`);
    if (!TERMINAL.has(record.status)) throw new AppError("session_not_ended", `Session ${record.id} has not ended.`);
    const settledAlready = () =>
      new AppError("analysis_settled", `Session ${record.id}'s analysis is already settled; a session has one result.`);
    if ((await this.service.view(record)).status !== "pending") throw settledAlready();
    const outcome = testOutcome(record.analysis.settings, body);
    if (body.memory_facts != null) {
      if (!record.analysis.memory || !this.memories) {
        throw invalid("memory_facts", "is not taken: the session's digital human has no memory, or its participant_identity was generated");
      }
      // Kept as an analysis's list is: before the outcome is settled, replacing what was kept.
      const key = memoryKeyOf(record);
      await this.memories.keep(key, await this.memories.base(key), body.memory_facts);
    }
    const shown = await this.service.settle(record.account_id, record.id, outcome);
    if (!shown) throw settledAlready();
    return shown;
  }
}

/** The helper's outcome as the LLM's answer would be read, or 422 naming what is wrong. */
export function testOutcome(settings: AnalysisSettings, body: TestSessionAnalysis): AnalysisOutcome {
  const { status, summary, data, success_criteria: criteria, error } = body;
  if (status === "failed") {
    const extra = (["summary", "data", "success_criteria", "memory_facts"] as const).filter((field) => body[field] != null);
    if (!error) throw invalid("error", "is required when status is failed");
    if (extra.length > 0) throw invalid(extra[0] as string, "is only taken when status is complete");
    return { status: "failed", error };
  }
  if (error) throw invalid("error", "is only taken when status is failed");
  if (settings.summary !== (summary != null)) {
    throw invalid(
      "summary",
      settings.summary ? "is asked for by the digital human's analysis" : "is not asked for by the digital human's analysis",
    );
  }
  if ((settings.data_schema !== null) !== (data != null)) {
    throw invalid(
      "data",
      settings.data_schema
        ? "is asked for by the digital human's data_schema"
        : "is not asked for: the digital human's analysis has no data_schema",
    );
  }
  const given = criteria ?? [];
  const unknown = given.findIndex((c) => !settings.success_criteria.includes(c.criterion));
  if (unknown >= 0) throw invalid(`success_criteria.${unknown}.criterion`, "is not one of the digital human's success_criteria");
  const request = analysisRequest({ settings, segments: [], digitalHumanName: "digital human" });
  const uncheckable = uncheckableSchema(request);
  if (uncheckable !== undefined) throw invalid("data", `cannot be checked: the digital human's data_schema cannot be (${uncheckable})`);
  const answer = {
    ...(settings.summary ? { summary } : {}),
    ...(settings.data_schema ? { data } : {}),
    ...(settings.success_criteria.length > 0
      ? {
          success_criteria: given.map((c) => ({
            index: settings.success_criteria.indexOf(c.criterion),
            result: c.result,
            reason: c.reason,
          })),
        }
      : {}),
  };
  const read = readAnalysisAnswer(JSON.stringify(answer), request);
  if (!read.ok) throw invalid(pathOf(read.problem), read.problem.replace(/^the answer('s)?( at \S+)? ?/, "") || read.problem);
  return {
    status: "complete",
    summary: read.result.summary,
    data: (read.result.data ?? null) as Record<string, unknown> | null,
    success_criteria: read.result.success_criteria,
  };
}

/** The body's field a problem of the answer's reader names (its JSON pointer), the body itself otherwise. */
function pathOf(problem: string): string {
  const pointer = /at \/(\S+)/.exec(problem)?.[1];
  if (pointer) return pointer.split("/").join(".");
  return problem.includes("success_criteria") ? "success_criteria" : "body";
}

function invalid(path: string, message: string): AppError {
  return new AppError("validation_failed", [{ location: "body", path, message }]);
}
