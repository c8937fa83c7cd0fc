/**
 * What a digital human asks of each of its sessions once it ends (`analysis`, null by default): a summary,
 * the data the customer wants extracted (`data_schema`, which the LLM is given as a strict structured
 * output, so it is held to what strict mode takes: strict-output-schema.ts), and the criteria the session
 * is judged by. Settings that ask for nothing are refused, so "no analysis" is spelt one way: null.
 */
import type { DigitalHumanAnalysis, DigitalHumanAnalysisInput } from "@dhs/contract";
import { shownTextProblem } from "@dhs/contract/shown-text";
import { type Issue, isRecord, issue, MAX_ISSUES } from "../json-schema/schema-walk.js";
import { type StrictSchemaLimits, strictSchemaIssues } from "../json-schema/strict-output-schema.js";

/** The settings as stored and shown (the contract's DigitalHumanAnalysis). */
export type AnalysisSettings = DigitalHumanAnalysis;

export const MAX_SUCCESS_CRITERIA = 10;
/** The longest a criterion may be, trimmed (characters, as JSON Schema's maxLength counts them). */
export const MAX_CRITERION_CHARS = 300;
/** Tighter than OpenAI's own limits: a session's analysis should cost one small request, not a form. */
export const DATA_SCHEMA_LIMITS: Readonly<StrictSchemaLimits> = { maxBytes: 8192, maxDepth: 5, maxProperties: 100, maxEnumValues: 250 };

const CONTROL = /\p{Cc}/u;

/** The settings as stored and shown: every field filled, criteria trimmed; null (or absent) stays null. */
export function analysisWithDefaults(input: DigitalHumanAnalysisInput | null | undefined): AnalysisSettings | null {
  if (input === null || input === undefined) return null;
  return {
    summary: input.summary ?? true,
    data_schema: input.data_schema ?? null,
    // A criterion of the wrong type is left for analysisIssues to name rather than thrown on here.
    success_criteria: (input.success_criteria ?? []).map((criterion) => (typeof criterion === "string" ? criterion.trim() : criterion)),
  };
}

/** The problems of the settings, each named by its path under `path`, none when they are fine. */
export function analysisIssues(settings: AnalysisSettings, path = "analysis"): Issue[] {
  const issues: Issue[] = [];
  const { summary, data_schema: schema, success_criteria: criteria } = settings;
  if (summary === false && schema === null && criteria.length === 0)
    issues.push(issue(path, `asks for nothing: set ${path} to null instead`));
  if (schema !== null) {
    const at = `${path}.data_schema`;
    if (isRecord(schema)) issues.push(...strictSchemaIssues(schema, at, DATA_SCHEMA_LIMITS));
    else issues.push(issue(at, "is not a JSON Schema object"));
  }
  issues.push(...criteriaIssues(criteria, `${path}.success_criteria`));
  return issues;
}

function criteriaIssues(criteria: readonly unknown[], path: string): Issue[] {
  const issues: Issue[] = [];
  if (criteria.length > MAX_SUCCESS_CRITERIA)
    issues.push(issue(path, `has ${criteria.length} criteria, more than ${MAX_SUCCESS_CRITERIA}`));
  const seen = new Map<string, number>();
  for (const [i, criterion] of criteria.entries()) {
    if (issues.length >= MAX_ISSUES) break;
    const problem = criterionProblem(criterion);
    if (problem !== undefined) {
      issues.push(issue(`${path}.${i}`, problem));
      continue;
    }
    const key = (criterion as string).trim().toLowerCase();
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else issues.push(issue(`${path}.${i}`, `is the same as ${path}.${first}; criteria must differ (ignoring case)`));
  }
  return issues;
}

function criterionProblem(criterion: unknown): string | undefined {
  if (typeof criterion !== "string") return "is not a string";
  const text = criterion.trim();
  if (text === "") return "is empty";
  const chars = [...text].length;
  if (chars > MAX_CRITERION_CHARS) return `is ${chars} characters, more than ${MAX_CRITERION_CHARS}`;
  // Stricter than the shown-text rule, which lets tab and line feed through: a criterion is one line.
  if (CONTROL.test(text)) return "has a control character: a criterion is one line of text";
  return shownTextProblem(text);
}
