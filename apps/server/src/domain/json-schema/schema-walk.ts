/**
 * A JSON Schema a customer gives, walked before an LLM provider is handed it (a tool's `parameters`, an
 * analysis's `data_schema`), so what the provider would refuse mid-session is refused when it is saved,
 * each problem named by its path. Each caller says which keywords it takes and adds rules of its own per
 * schema; the walk bounds the nesting and stops after MAX_ISSUES problems, so a hostile schema costs little.
 */

/** A problem of a request's body, named by its path. */
export interface Issue {
  location: "body";
  path: string;
  message: string;
}

/** The most problems one walk adds: enough to fix a schema by, few enough to keep a refusal small. */
export const MAX_ISSUES = 20;

export const SCHEMA_TYPES: ReadonlySet<string> = new Set(["string", "number", "integer", "boolean", "array", "object", "null"]);

/** The keywords a caller takes, by what their value is. */
export interface SchemaKeywords {
  /** A schema. */
  schema: ReadonlySet<string>;
  /** An object of schemas by name. */
  schemaMap: ReadonlySet<string>;
  /** A non-empty list of schemas. */
  schemaList: ReadonlySet<string>;
  /** Anything else. `type` and `required` are always taken, and their values checked here. */
  plain: ReadonlySet<string>;
}

/** Where a schema stands: its path, its depth (the root is 1) and the keyword it is (under) the value of. */
export interface SchemaNode {
  path: string;
  depth: number;
  /** Absent at the root. */
  via?: string;
}

export interface SchemaWalk {
  keywords: SchemaKeywords;
  /** How deep schemas may nest (the root is depth 1). */
  maxDepth: number;
  /** What a keyword outside `keywords` is told. */
  unknownKeyword: string;
  /** Whether `true` or `false` may stand for a schema here (JSON Schema allows it; providers seldom do). */
  allowsBoolean(node: SchemaNode): boolean;
  /** The caller's own rules for one schema object, run before its keywords are walked; they push to `issues`. */
  check?(schema: Record<string, unknown>, node: SchemaNode, issues: Issue[]): void;
}

/** Walks `schema` (the root, at `path`) and adds its problems to `issues`, which it returns. */
export function walkSchema(schema: unknown, path: string, walk: SchemaWalk, issues: Issue[] = []): Issue[] {
  walkNode(schema, { path, depth: 1 }, walk, issues);
  return issues;
}

function walkNode(schema: unknown, node: SchemaNode, walk: SchemaWalk, issues: Issue[]): void {
  if (issues.length >= MAX_ISSUES) return;
  const { path, depth } = node;
  if (depth > walk.maxDepth) {
    issues.push(issue(path, `nests schemas more than ${walk.maxDepth} deep`));
    return;
  }
  if (typeof schema === "boolean" && walk.allowsBoolean(node)) return;
  if (!isRecord(schema)) {
    issues.push(issue(path, "is not a JSON Schema object"));
    return;
  }
  walk.check?.(schema, node, issues);
  const { keywords } = walk;
  for (const [keyword, value] of Object.entries(schema)) {
    const at = `${path}.${keyword}`;
    const next = (sub: unknown, subPath: string) => walkNode(sub, { path: subPath, depth: depth + 1, via: keyword }, walk, issues);
    if (keywords.schema.has(keyword)) next(value, at);
    else if (keywords.schemaMap.has(keyword)) {
      if (!isRecord(value)) issues.push(issue(at, "is not an object of schemas"));
      else for (const [name, sub] of Object.entries(value)) next(sub, `${at}.${name}`);
    } else if (keywords.schemaList.has(keyword)) {
      if (!Array.isArray(value) || value.length === 0) issues.push(issue(at, "is not a list of schemas"));
      else for (const [i, sub] of value.entries()) next(sub, `${at}.${i}`);
    } else if (keyword === "type") {
      const types = Array.isArray(value) ? value : [value];
      if (types.length === 0 || !types.every((t) => typeof t === "string" && SCHEMA_TYPES.has(t)))
        issues.push(issue(at, `is not one of ${[...SCHEMA_TYPES].join(", ")} (or a list of them)`));
    } else if (keyword === "required") {
      if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) issues.push(issue(at, "is not a list of names"));
    } else if (!keywords.plain.has(keyword)) {
      issues.push(issue(at, walk.unknownKeyword));
    }
  }
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

export const issue = (path: string, message: string): Issue => ({ location: "body", path, message });
