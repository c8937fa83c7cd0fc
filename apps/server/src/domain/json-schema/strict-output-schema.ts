/**
 * A JSON Schema as OpenAI's strict structured outputs take it (`response_format: {type: "json_schema",
 * json_schema: {name, schema, strict: true}}`), checked when it is saved because the provider would only
 * refuse it when the output is asked for, after the session. Strict mode fills every field and invents
 * none, so every object is closed (`additionalProperties: false`) and requires all its properties; it
 * takes a subset of the keywords, an object at the root, and `$ref` only into the root's `$defs`, with no
 * loop that never goes into the value (ref-cycles.ts). The service checks the answer against the schema
 * itself, so a `pattern` must be one it matches in linear time (linear-pattern.ts). The bounds (size,
 * depth, properties, enum values) are the caller's: they cap what one schema costs.
 */
import { linearPatternProblem } from "./linear-pattern.js";
import { localRefTarget, refCycleIssues } from "./ref-cycles.js";
import { type Issue, isRecord, issue, MAX_ISSUES, type SchemaNode, type SchemaWalk, walkSchema } from "./schema-walk.js";

export interface StrictSchemaLimits {
  /** As JSON, in bytes. */
  maxBytes: number;
  /** How deep schemas may nest (the root is depth 1). */
  maxDepth: number;
  /** Properties of all the objects together. */
  maxProperties: number;
  /** Values of all the enums together. */
  maxEnumValues: number;
}

export const STRICT_FORMATS: ReadonlySet<string> = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
]);

const PROPERTY_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const OPTIONAL_HINT = 'an optional field is written with "null" among its types, e.g. "type": ["string", "null"]';

type ValueRule = (value: unknown) => string | undefined;
const text: ValueRule = (v) => (typeof v === "string" ? undefined : "is not a string");
const number: ValueRule = (v) => (typeof v === "number" && Number.isFinite(v) ? undefined : "is not a number");
const count: ValueRule = (v) => (Number.isSafeInteger(v) && (v as number) >= 0 ? undefined : "is not a whole number of 0 or more");
const isScalar = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);

/** The plain keywords strict mode takes, each with what its value must be ($ref is checked against the root). */
const VALUES: Record<string, ValueRule> = {
  description: text,
  title: text,
  additionalProperties: (v) => (v === false ? undefined : "must be false: strict structured outputs take only the properties listed"),
  enum: (v) =>
    Array.isArray(v) && v.length > 0 && v.every(isScalar) ? undefined : "is not a non-empty list of strings, numbers, booleans or null",
  const: (v) => (isScalar(v) ? undefined : "is not a string, number, boolean or null"),
  pattern: (v) => (typeof v === "string" ? linearPatternProblem(v) : "is not a regular expression"),
  format: (v) => (typeof v === "string" && STRICT_FORMATS.has(v) ? undefined : `is not one of ${[...STRICT_FORMATS].join(", ")}`),
  minimum: number,
  maximum: number,
  exclusiveMinimum: number,
  exclusiveMaximum: number,
  multipleOf: (v) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? undefined : "is not a number above 0"),
  minItems: count,
  maxItems: count,
};

const KEYWORDS = {
  schema: new Set(["items"]),
  schemaMap: new Set(["properties", "$defs"]),
  schemaList: new Set(["anyOf"]),
  plain: new Set(["type", "required", "$ref", ...Object.keys(VALUES)]),
};

/** The problems of `schema` (at `path`) as a strict structured output's schema, none when it is fine. */
export function strictSchemaIssues(schema: Record<string, unknown>, path: string, limits: StrictSchemaLimits): Issue[] {
  const issues: Issue[] = [];
  const size = Buffer.byteLength(JSON.stringify(schema));
  if (size > limits.maxBytes) issues.push(issue(path, `is ${size} bytes as JSON, more than ${limits.maxBytes}`));
  const totals = { properties: 0, enumValues: 0 };
  const defs = isRecord(schema.$defs) ? schema.$defs : {};
  const walk: SchemaWalk = {
    keywords: KEYWORDS,
    maxDepth: limits.maxDepth,
    unknownKeyword: "is not a keyword OpenAI's strict structured outputs take",
    allowsBoolean: () => false,
    check: (node, at, found) => {
      if (isRecord(node.properties)) totals.properties += Object.keys(node.properties).length;
      if (Array.isArray(node.enum)) totals.enumValues += node.enum.length;
      found.push(...nodeIssues(node, at, defs));
    },
  };
  walkSchema(schema, path, walk, issues);
  if (issues.length < MAX_ISSUES) issues.push(...refCycleIssues(schema, path).slice(0, MAX_ISSUES - issues.length));
  if (totals.properties > limits.maxProperties)
    issues.push(issue(path, `has ${totals.properties} properties in all, more than ${limits.maxProperties}`));
  if (totals.enumValues > limits.maxEnumValues)
    issues.push(issue(path, `has ${totals.enumValues} enum values in all, more than ${limits.maxEnumValues}`));
  return issues;
}

/** One schema's problems beyond its keywords' own: where it stands, its object rules, its values. */
function nodeIssues(schema: Record<string, unknown>, { path, depth }: SchemaNode, defs: Record<string, unknown>): Issue[] {
  const issues: Issue[] = [];
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (depth === 1) {
    if (schema.type !== "object") issues.push(issue(`${path}.type`, 'must be "object": the data extracted is a JSON object'));
    if ("anyOf" in schema) issues.push(issue(`${path}.anyOf`, "is not taken at the root, only inside it"));
  } else {
    if (!("type" in schema || "anyOf" in schema || "$ref" in schema))
      issues.push(issue(path, "has no type: strict structured outputs need one in every schema (or anyOf, or $ref)"));
    if ("$defs" in schema) issues.push(issue(`${path}.$defs`, "is taken only at the root"));
  }
  if (types.includes("object") || "properties" in schema) issues.push(...objectIssues(schema, path));
  if ("$ref" in schema) {
    const target = localRefTarget(schema.$ref);
    const name = target?.startsWith("#/$defs/") ? target.slice("#/$defs/".length) : undefined;
    if (name === undefined || !Object.hasOwn(defs, name))
      issues.push(issue(`${path}.$ref`, 'is not "#/$defs/<name>" of a schema in the root\'s $defs'));
  }
  for (const [keyword, rule] of Object.entries(VALUES)) {
    const problem = keyword in schema ? rule(schema[keyword]) : undefined;
    if (problem !== undefined) issues.push(issue(`${path}.${keyword}`, problem));
  }
  return issues;
}

/** An object's rules in strict mode: closed, every property required, names a provider takes. */
function objectIssues(schema: Record<string, unknown>, path: string): Issue[] {
  const issues: Issue[] = [];
  if (!("additionalProperties" in schema))
    issues.push(issue(`${path}.additionalProperties`, "is missing: strict structured outputs need it false in every object"));
  const names = isRecord(schema.properties) ? Object.keys(schema.properties) : [];
  for (const name of names.filter((n) => !PROPERTY_NAME.test(n)))
    issues.push(issue(`${path}.properties.${name}`, "is not a property name: a letter or _, then at most 63 letters, digits or _"));
  if (!Array.isArray(schema.required) && "required" in schema) return issues;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const missing = names.filter((name) => !required.has(name));
  if (missing.length > 0)
    issues.push(
      issue(
        `${path}.required`,
        `must list every property, and misses ${missing.join(", ")}: strict structured outputs fill every field; ${OPTIONAL_HINT}`,
      ),
    );
  const unknown = [...required].filter((name) => typeof name === "string" && !names.includes(name));
  if (unknown.length > 0) issues.push(issue(`${path}.required`, `names ${unknown.join(", ")}, not among the properties`));
  return issues;
}
