/**
 * A digital human's tools as given to createDigitalHuman and updateDigitalHuman (contract guide,
 * "Tools"): each filled with its defaults, names unique, and `parameters` a JSON Schema object of what
 * OpenAI's function calling takes, within bounds the contract cannot say (its depth in schemas, its size,
 * its keywords), so a schema that an LLM provider would refuse mid-conversation is refused here, with the
 * path of the problem. Whether an `endpoint_id` is the account's is checked by the caller (a store read).
 */
import type { Tool } from "@dhs/contract";
import { refCycleIssues } from "../json-schema/ref-cycles.js";
import { type Issue, issue, MAX_ISSUES, type SchemaWalk, walkSchema } from "../json-schema/schema-walk.js";

export const DEFAULT_TOOL_TIMEOUT_MS = 5_000;
export const EMPTY_PARAMETERS: Readonly<Record<string, unknown>> = { type: "object", properties: {} };
export const DEFAULT_END_SESSION_DESCRIPTION =
  "End the conversation when the participant says goodbye or asks to end it. Say your goodbye first.";

/** How deep schemas may nest in `parameters` (the root is depth 1). */
export const MAX_SCHEMA_DEPTH = 8;
/** The most `parameters` may take as JSON (bytes). */
export const MAX_PARAMETERS_BYTES = 4096;

export type ToolIssue = Issue;

/** The keywords function calling takes; a boolean stands for a schema only as `additionalProperties`. */
const PARAMETERS: SchemaWalk = {
  keywords: {
    schema: new Set(["items", "additionalProperties"]),
    schemaMap: new Set(["properties", "$defs", "definitions"]),
    schemaList: new Set(["anyOf"]),
    plain: new Set([
      "type",
      "description",
      "title",
      "default",
      "examples",
      "enum",
      "const",
      "required",
      "format",
      "pattern",
      "minLength",
      "maxLength",
      "minimum",
      "maximum",
      "exclusiveMinimum",
      "exclusiveMaximum",
      "multipleOf",
      "minItems",
      "maxItems",
      "uniqueItems",
      "minProperties",
      "maxProperties",
      "$ref",
      "nullable",
    ]),
  },
  maxDepth: MAX_SCHEMA_DEPTH,
  unknownKeyword: "is not a keyword of OpenAI's function calling schemas",
  allowsBoolean: ({ path }) => path.endsWith(".additionalProperties"),
  check: (schema, { path }, issues) => {
    if ("pattern" in schema && !isPattern(schema.pattern)) issues.push(issue(`${path}.pattern`, "is not a regular expression"));
  },
};

/** Whether a tool's `pattern` is one, for the LLM provider that reads it (the service never matches it). */
function isPattern(pattern: unknown): boolean {
  if (typeof pattern !== "string") return false;
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}

/** The tools as stored and shown: every field filled. */
export function withDefaults(tools: readonly Tool[] | null | undefined): Tool[] {
  return (tools ?? []).map((tool): Tool => {
    if (tool.type === "end_session") {
      return { type: tool.type, name: tool.name, description: tool.description ?? DEFAULT_END_SESSION_DESCRIPTION };
    }
    const common = {
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters ?? { ...EMPTY_PARAMETERS },
      timeout_ms: tool.timeout_ms ?? DEFAULT_TOOL_TIMEOUT_MS,
    };
    return tool.type === "webhook"
      ? { type: "webhook", ...common, endpoint_id: tool.endpoint_id.toLowerCase() }
      : { type: "client", ...common };
  });
}

/** The problems of a list of tools (each named by its path under `tools`), none when it is fine. */
export function toolIssues(tools: readonly Tool[]): ToolIssue[] {
  const issues: ToolIssue[] = [];
  const seen = new Map<string, number>();
  tools.forEach((tool, i) => {
    const first = seen.get(tool.name);
    if (first !== undefined) issues.push(issue(`tools.${i}.name`, `is the name of tools.${first} too; names must be unique`));
    else seen.set(tool.name, i);
    if (tool.type !== "end_session" && tool.parameters !== undefined)
      issues.push(...parametersIssues(tool.parameters, `tools.${i}.parameters`));
  });
  if (tools.filter((tool) => tool.type === "end_session").length > 1) {
    issues.push(issue("tools", "has more than one end_session tool"));
  }
  return issues;
}

/**
 * A `parameters` schema's problems: an object at the root, known keywords, bounded depth and size, and
 * no `$ref` loop that never goes into the value (the digital human's framework follows references when
 * it fills defaults in a call's arguments, and would recurse until its stack overflowed).
 */
export function parametersIssues(parameters: Record<string, unknown>, path: string): ToolIssue[] {
  const issues: ToolIssue[] = [];
  const size = Buffer.byteLength(JSON.stringify(parameters));
  if (size > MAX_PARAMETERS_BYTES) issues.push(issue(path, `is ${size} bytes as JSON, more than ${MAX_PARAMETERS_BYTES}`));
  if (parameters.type !== "object") issues.push(issue(`${path}.type`, 'must be "object": the arguments are a JSON object'));
  walkSchema(parameters, path, PARAMETERS, issues);
  if (issues.length < MAX_ISSUES) issues.push(...refCycleIssues(parameters, path).slice(0, MAX_ISSUES - issues.length));
  return issues;
}
