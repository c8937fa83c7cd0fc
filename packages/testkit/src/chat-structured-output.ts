/**
 * Structured outputs as OpenAI's Chat Completions API takes them (`response_format: {type: "json_schema",
 * json_schema: {name, schema, strict}}`), for the testkit's server: the request's format read and checked
 * the way the API refuses it (a name it does not take; with `strict`, an object schema that does not list
 * every property as required or allows others), so a service that sends a schema the real API would
 * refuse fails its tests here too, rather than in production.
 */

/** A request's `response_format`, as sent. */
export type ResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | { type: "json_schema"; json_schema: { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean | null } };

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The request's format, or why OpenAI would refuse it (its 400's message). */
export function readResponseFormat(value: unknown): { format: ResponseFormat | undefined } | { problem: string } {
  if (value === undefined) return { format: undefined };
  const format = value as { type?: unknown; json_schema?: { name?: unknown; schema?: unknown; strict?: unknown } };
  if (format.type === "text" || format.type === "json_object") return { format: format as ResponseFormat };
  if (format.type !== "json_schema") return { problem: "Invalid value for 'response_format.type'." };
  const spec = format.json_schema;
  if (typeof spec?.name !== "string" || !NAME.test(spec.name)) return { problem: "Invalid 'response_format.json_schema.name'." };
  if (spec.schema !== undefined && (typeof spec.schema !== "object" || spec.schema === null))
    return { problem: "Invalid type for 'response_format.json_schema.schema'." };
  if (spec.strict === true) {
    const problem = strictProblem(spec.schema ?? {}, []);
    if (problem) return { problem: `Invalid schema for response_format '${spec.name}': ${problem}` };
  }
  return { format: format as ResponseFormat };
}

/** Strict mode's rule, everywhere in the schema: an object lists all its properties as required and no others. */
function strictProblem(schema: unknown, context: string[]): string | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  const node = schema as Record<string, unknown>;
  const where = `In context=(${context.map((c) => `'${c}'`).join(", ")})`;
  if (node.type === "object" || (Array.isArray(node.type) && node.type.includes("object")) || node.properties !== undefined) {
    if (node.additionalProperties !== false) return `${where}, 'additionalProperties' is required to be supplied and to be false.`;
    const properties = Object.keys((node.properties as Record<string, unknown> | undefined) ?? {});
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const missing = properties.filter((p) => !required.has(p));
    if (missing.length > 0)
      return `${where}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing[0]}'.`;
  }
  const children: [string, unknown][] = [
    ...Object.entries((node.properties as Record<string, unknown> | undefined) ?? {}),
    ...(node.items === undefined ? [] : [["items", node.items] as [string, unknown]]),
    ...(Array.isArray(node.anyOf) ? node.anyOf.map((v, i): [string, unknown] => [`anyOf/${i}`, v]) : []),
    ...Object.entries((node.$defs as Record<string, unknown> | undefined) ?? {}).map(([k, v]): [string, unknown] => [`$defs/${k}`, v]),
  ];
  for (const [key, child] of children) {
    const problem = strictProblem(child, [...context, key]);
    if (problem) return problem;
  }
  return undefined;
}

/** The schema a request asked its reply to follow (json_schema), or undefined. */
export function askedSchema(format: ResponseFormat | undefined): Record<string, unknown> | undefined {
  return format?.type === "json_schema" ? format.json_schema.schema : undefined;
}
