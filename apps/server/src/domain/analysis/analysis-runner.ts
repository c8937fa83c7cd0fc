/**
 * One attempt at a session's analysis (contract guide, "Analysis"): the transcript and the settings made
 * into one structured-output request, its answer checked against the schema, one repair asked for when
 * it does not match. What it never does: ask an LLM about a session whose participant said nothing (the
 * criteria are then `unknown`, nothing else is said), or make up an analysis without an LLM (`failed`,
 * `llm_not_configured`). A failure worth another attempt (the LLM unreachable, slow, overloaded) is
 * handed back as `retry` for the service to schedule with back-off.
 */
import type { AnalysisError } from "@dhs/contract";
import type { StoredSegment } from "../transcripts/transcript.js";
import { readAnalysisAnswer, repairMessages, uncheckableSchema } from "./analysis-answer.js";
import { analysisRequest, hasParticipantSpeech } from "./analysis-request.js";
import { type AnalysisModel, LlmCallError } from "./ports.js";
import type { AnalysisOutcome, StoredAnalysis } from "./stored-analysis.js";

export interface AnalysisLlm {
  /** Undefined when the deployment has no LLM (no OPENAI_BASE_URL). */
  model: AnalysisModel | undefined;
  /** The model asked when the persona names none. */
  defaultModel: string;
  /** Each request's whole time, answer included. */
  timeoutMs: number;
}

/** An attempt's end: its outcome, and when memory was asked for, the participant's facts as they should be kept now. */
export type AttemptResult = { kind: "outcome"; outcome: AnalysisOutcome; memoryFacts?: string[] } | { kind: "retry"; reason: string };

const NOTHING_SAID = "The participant said nothing in this session.";

export async function runAnalysis(
  analysis: StoredAnalysis,
  segments: readonly StoredSegment[],
  llm: AnalysisLlm,
  signal?: AbortSignal,
  /** The facts kept so far about the participant, when the analysis keeps them (then answered updated). */
  memory?: { facts: readonly string[] },
): Promise<AttemptResult> {
  const { settings } = analysis;
  if (!llm.model) {
    return failed("llm_not_configured", "This deployment has no LLM (OPENAI_BASE_URL), so no analysis is made.");
  }
  if (!hasParticipantSpeech(segments)) {
    const criteria = settings.success_criteria.map((criterion) => ({ criterion, result: "unknown" as const, reason: NOTHING_SAID }));
    return { kind: "outcome", outcome: { status: "complete", summary: null, data: null, success_criteria: criteria } };
  }
  const request = analysisRequest({ settings, segments, digitalHumanName: analysis.digital_human_name, memory });
  const uncheckable = uncheckableSchema(request);
  if (uncheckable !== undefined) {
    return failed("invalid_schema", `The digital human's data_schema cannot be checked (${uncheckable}); update it. No LLM was asked.`);
  }
  const ask = (messages: typeof request.messages) =>
    (llm.model as AnalysisModel).completeJson({
      model: analysis.model ?? llm.defaultModel,
      messages,
      schemaName: request.schemaName,
      schema: request.schema,
      timeoutMs: llm.timeoutMs,
      ...(signal ? { signal } : {}),
    });
  try {
    const text = await ask(request.messages);
    let answer = readAnalysisAnswer(text, request);
    if (!answer.ok) answer = readAnalysisAnswer(await ask(repairMessages(request, text, answer.problem)), request);
    if (!answer.ok) return failed("invalid_answer", `The LLM's answer did not match the schema, even repaired once: ${answer.problem}`);
    const { summary, data, success_criteria, memory_facts } = answer.result;
    return {
      kind: "outcome",
      outcome: { status: "complete", summary, data: (data ?? null) as Record<string, unknown> | null, success_criteria },
      ...(memory_facts ? { memoryFacts: memory_facts } : {}),
    };
  } catch (error) {
    if (!(error instanceof LlmCallError)) throw error;
    if (error.retryable) return { kind: "retry", reason: error.message };
    return failed(error.kind === "empty" ? "invalid_answer" : "llm_refused", error.message);
  }
}

function failed(code: AnalysisError["code"], message: string): AttemptResult {
  return { kind: "outcome", outcome: { status: "failed", error: { code, message: message.slice(0, 500) } } };
}

/** The outcome once every attempt failed with a retryable error. */
export function unavailable(attempts: number, reason: string): AnalysisOutcome {
  const message = `The LLM failed on ${attempts} tries; the last: ${reason}`;
  return { status: "failed", error: { code: "llm_unavailable", message: message.slice(0, 500) } };
}
