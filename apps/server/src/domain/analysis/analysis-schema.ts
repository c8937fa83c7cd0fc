/**
 * The JSON Schema a session's analysis answers with, as OpenAI's strict structured outputs take it (every
 * object closed, every property required), holding only the parts asked. The customer's `data_schema`
 * becomes the `data` property; its definitions move to the root, where OpenAI reads `$defs`, and its
 * local references are rewritten to point where it now stands.
 */

export const CRITERION_RESULTS = ["met", "not_met", "unknown"] as const;
export type CriterionResult = (typeof CRITERION_RESULTS)[number];

/** The most facts kept about a participant, and the longest one. */
export const MAX_MEMORY_FACTS = 10;
export const MAX_FACT_CHARS = 200;

/** What an analysis asks for. */
export interface AnalysisParts {
  summary: boolean;
  dataSchema: Record<string, unknown> | null;
  /** The success criteria's texts, by index. */
  criteria: readonly string[];
  memory: boolean;
}

const DEFINITIONS = ["$defs", "definitions"] as const;
// Keywords whose value is data, not schemas: a `$ref` key inside them is no reference.
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples"]);
// Keywords whose value is schemas by name: the names may be any word, `enum` or `$ref` included.
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "dependentSchemas", ...DEFINITIONS]);

export function analysisSchema(parts: AnalysisParts): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const root: Record<string, unknown> = { type: "object", additionalProperties: false };
  if (parts.summary) properties.summary = { type: "string" };
  if (parts.dataSchema) {
    const { schema, definitions } = nested(parts.dataSchema, "#/properties/data");
    properties.data = schema;
    Object.assign(root, definitions);
  }
  if (parts.criteria.length > 0) {
    properties.success_criteria = {
      type: "array",
      minItems: parts.criteria.length,
      maxItems: parts.criteria.length,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["index", "result", "reason"],
        properties: {
          index: { type: "integer", minimum: 0, maximum: parts.criteria.length - 1 },
          result: { type: "string", enum: [...CRITERION_RESULTS] },
          reason: { type: "string" },
        },
      },
    };
  }
  // maxLength is left to the reader (analysis-answer.ts): strict mode does not take it everywhere.
  if (parts.memory) properties.memory_facts = { type: "array", maxItems: MAX_MEMORY_FACTS, items: { type: "string" } };
  return { ...root, required: Object.keys(properties), properties };
}

/**
 * The customer's schema as a subschema at `at`: without `$schema` and `$id` (a subschema's `$id` would
 * move the base its references resolve against), its definitions lifted out for the root, and every local
 * reference but those into the definitions prefixed with `at`.
 */
function nested(schema: Record<string, unknown>, at: string): { schema: unknown; definitions: Record<string, unknown> } {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  const definitions: Record<string, unknown> = {};
  for (const keyword of DEFINITIONS) {
    if (rest[keyword] === undefined) continue;
    definitions[keyword] = rewriteMap(rest[keyword], at);
    delete rest[keyword];
  }
  return { schema: rewriteRefs(rest, at), definitions };
}

/** A schema (or a list of schemas) with its local references moved. */
function rewriteRefs(schema: unknown, at: string): unknown {
  if (Array.isArray(schema)) return schema.map((item) => rewriteRefs(item, at));
  if (typeof schema !== "object" || schema === null) return schema;
  // fromEntries, not assignment: a key "__proto__" stays a key.
  return Object.fromEntries(Object.entries(schema).map(([key, child]) => [key, rewritten(key, child, at)]));
}

function rewritten(key: string, child: unknown, at: string): unknown {
  if (key === "$ref" && typeof child === "string") return movedRef(child, at);
  if (DATA_KEYWORDS.has(key)) return child;
  return SCHEMA_MAPS.has(key) ? rewriteMap(child, at) : rewriteRefs(child, at);
}

function rewriteMap(map: unknown, at: string): unknown {
  if (typeof map !== "object" || map === null || Array.isArray(map)) return map;
  return Object.fromEntries(Object.entries(map).map(([name, schema]) => [name, rewriteRefs(schema, at)]));
}

function movedRef(ref: string, at: string): string {
  if (!ref.startsWith("#")) return ref;
  if (DEFINITIONS.some((keyword) => ref.startsWith(`#/${keyword}/`))) return ref;
  return `${at}${ref.slice(1)}`;
}
