/**
 * The LLM's answer to a session's analysis, read: parsed, checked against the schema it was asked to
 * follow (a provider without strict structured outputs may not keep to it), each criterion's index mapped
 * back to its text, and the free text held to its bounds. An answer that does not fit gets one repair
 * attempt: the conversation so far, the bad answer, and what is wrong with it.
 */

import { toShownText } from "@dhs/contract/shown-text";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import { keptJson, MAX_FOREIGN_DEPTH, parseForeignJson } from "../foreign-json.js";
import { linearRegExpEngine } from "../json-schema/linear-pattern.js";
import { refCycleIssues } from "../json-schema/ref-cycles.js";
import { isRecord } from "../json-schema/schema-walk.js";
import { type AnalysisRequest, oneLine } from "./analysis-request.js";
import { type CriterionResult, MAX_FACT_CHARS, MAX_MEMORY_FACTS } from "./analysis-schema.js";
import type { AnalysisMessage } from "./ports.js";

export const MAX_SUMMARY_CHARS = 2000;
/**
 * The longest answer read (bytes of UTF-8): many times what the largest one asked for takes (a summary of
 * 2 000 characters, ten verdicts, the facts, data by a schema of at most 8 KiB), and nothing beyond it is
 * stored or held, whatever the LLM was talked into writing.
 */
export const MAX_ANSWER_BYTES = 64 * 1024;
export const MAX_REASON_CHARS = 300;
/** What a verdict says when the LLM gave none: the contract has no empty reason, and none is made up. */
export const NO_REASON = "The LLM gave no reason.";

// What the contract's summary pattern keeps out (controls but tab and line breaks, bidirectional
// overrides, which could make a summary read differently on a customer's screen).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the contract's pattern, about control characters
const HIDDEN_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g;

/** One line as the service's shown-text rule takes it (controls made spaces, bidirectional ones dropped). */
const shownLine = (text: string): string => oneLine(toShownText(text, Number.POSITIVE_INFINITY));

/** A verdict's reason as shown: one line, bounded, NO_REASON when none was given. */
export const shownReason = (reason: string): string => clip(shownLine(reason) || NO_REASON, MAX_REASON_CHARS);

/** A summary as shown: hidden characters dropped, bounded; an empty one is none, as one never asked for. */
export const shownSummary = (summary: string): string | null => clip(summary.replace(HIDDEN_IN_TEXT, "").trim(), MAX_SUMMARY_CHARS) || null;

export interface CriterionVerdict {
  criterion: string;
  result: CriterionResult;
  reason: string;
}

export interface AnalysisResult {
  /** Null when not asked, as are data and memory_facts. */
  summary: string | null;
  data: unknown | null;
  /** In the criteria's order; [] without criteria. */
  success_criteria: CriterionVerdict[];
  /** The whole list to keep from now on, replacing the one given. */
  memory_facts: string[] | null;
}

export type AnalysisAnswer = { ok: true; result: AnalysisResult } | { ok: false; problem: string };

interface Answer {
  summary?: string;
  data?: unknown;
  success_criteria?: { index: number; result: CriterionResult; reason: string }[];
  memory_facts?: string[];
}

// Formats are left unchecked: ajv-formats is no dependency of the service, and a value in the wrong
// format is still the model's reading of the transcript. strict: false takes the keywords Ajv does not know.
// Patterns are the customer's: matched in linear time, never by the native RegExp (linear-pattern.ts).
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false, code: { regExp: linearRegExpEngine } });
/**
 * Compiled checks by the schema's JSON, the most recently used kept: a digital human's sessions ask with
 * the same schema, and compiling one costs milliseconds (most of an analysis's CPU when it was compiled
 * each time: 7.0 ms an analysis, bench "Analysis after the session").
 */
const validators = new Map<string, ValidateFunction>();
const MAX_VALIDATORS = 200;

/**
 * Why answers to `request` cannot be checked, or undefined when they can: a schema kept from before the
 * service refused what it holds (a `$ref` loop, a pattern beyond linear time) fails every answer alike,
 * so it is found before an LLM is asked, and no repair is tried.
 */
export function uncheckableSchema(request: AnalysisRequest): string | undefined {
  const loop = refCycleIssues(request.schema, "data_schema")[0];
  if (loop) return shownLine(`${loop.path} ${loop.message}`);
  try {
    validator(request.schema);
    return undefined;
  } catch (error) {
    return clip(shownLine(error instanceof Error ? error.message : String(error)), MAX_REASON_CHARS);
  }
}

/**
 * Reads the answer to `request`: at most MAX_ANSWER_BYTES, its strings kept as the history can hold them
 * (foreign-json.ts). A schema Ajv cannot compile throws (uncheckableSchema says so first): that is no
 * fault of the answer, and a repair cannot help.
 */
export function readAnalysisAnswer(text: string, request: AnalysisRequest): AnalysisAnswer {
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_ANSWER_BYTES) return { ok: false, problem: `the answer is ${bytes} bytes, more than ${MAX_ANSWER_BYTES}` };
  const read = parseForeignJson(text);
  if (!read.ok) {
    const deep = `the answer nests more than ${MAX_FOREIGN_DEPTH} levels deep`;
    return { ok: false, problem: read.problem === "not_json" ? "the answer is not one JSON value" : deep };
  }
  // The data is kept as it came, cleaned for the history and then checked; the texts have their own rule.
  const value = isRecord(read.value) && "data" in read.value ? { ...read.value, data: keptJson(read.value.data) } : read.value;
  const validate = validator(request.schema);
  if (!validate(value)) return { ok: false, problem: schemaProblem(validate.errors?.[0]) };
  const answer = value as Answer;
  const verdicts = criterionVerdicts(answer, request.parts.criteria);
  if (!Array.isArray(verdicts)) return { ok: false, problem: verdicts.problem };
  return {
    ok: true,
    result: {
      summary: answer.summary === undefined ? null : shownSummary(answer.summary),
      data: answer.data === undefined ? null : answer.data,
      success_criteria: verdicts,
      memory_facts: answer.memory_facts === undefined ? null : keptFacts(answer.memory_facts),
    },
  };
}

/** The messages of the one repair attempt after `badText` was read with `problem`. */
export function repairMessages(request: AnalysisRequest, badText: string, problem: string): AnalysisMessage[] {
  return [
    ...request.messages,
    { role: "assistant", content: badText },
    {
      role: "user",
      content: `That answer cannot be used: ${problem}. Answer again with the corrected JSON object only, following the schema, and nothing else.`,
    },
  ];
}

function validator(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    // Ajv keeps every schema it compiled, by reference: each session's would stay for the process's life.
    ajv.removeSchema(schema);
    if (validators.size >= MAX_VALIDATORS) validators.delete(validators.keys().next().value as string);
  } else {
    validators.delete(key);
  }
  validators.set(key, validate);
  return validate;
}

/** Ajv's first error as one line: where in the answer, and what is wrong there. */
function schemaProblem(error: ErrorObject | undefined): string {
  if (error === undefined) return "the answer does not follow the schema";
  const where = error.instancePath === "" ? "the answer" : `the answer at ${error.instancePath}`;
  const params = error.params as { additionalProperty?: string; allowedValues?: unknown[] };
  const detail =
    params.additionalProperty !== undefined
      ? ` ('${params.additionalProperty}')`
      : params.allowedValues !== undefined
        ? `: ${params.allowedValues.map((v) => JSON.stringify(v)).join(", ")}`
        : "";
  return `${where} ${error.message ?? "does not follow the schema"}${detail}`;
}

/** Each criterion's verdict in the criteria's order, or what is wrong when an index is missing or repeated. */
function criterionVerdicts(answer: Answer, criteria: readonly string[]): CriterionVerdict[] | { problem: string } {
  const byIndex = new Map<number, CriterionVerdict>();
  const repeated = new Set<number>();
  for (const entry of answer.success_criteria ?? []) {
    if (byIndex.has(entry.index)) repeated.add(entry.index);
    const criterion = criteria[entry.index] ?? "";
    byIndex.set(entry.index, { criterion, result: entry.result, reason: shownReason(entry.reason) });
  }
  const missing = criteria.flatMap((_, index) => (byIndex.has(index) ? [] : [index]));
  if (repeated.size === 0 && missing.length === 0) return criteria.map((_, index) => byIndex.get(index) as CriterionVerdict);
  const said = [
    ...(repeated.size > 0 ? [`index ${[...repeated].join(", ")} answered more than once`] : []),
    ...(missing.length > 0 ? [`index ${missing.join(", ")} not answered`] : []),
  ];
  return { problem: `the answer's success_criteria must answer each criterion exactly once: ${said.join("; ")}` };
}

/**
 * The facts to keep: one line each, no empty ones, no repeats (ignoring case), at most MAX_MEMORY_FACTS.
 * A fact longer than MAX_FACT_CHARS is dropped, not cut: a fact cut short may say something else
 * ("is allergic to" with the allergen cut off), and a wrong fact kept about a person is worse than none.
 */
export function keptFacts(facts: readonly string[]): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const fact of facts.map(shownLine)) {
    const key = fact.toLowerCase();
    if (fact === "" || [...fact].length > MAX_FACT_CHARS || seen.has(key)) continue;
    seen.add(key);
    kept.push(fact);
    if (kept.length === MAX_MEMORY_FACTS) break;
  }
  return kept;
}

/** At most `max` characters (code points, so no emoji is cut in half), with an ellipsis when cut. */
function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}
