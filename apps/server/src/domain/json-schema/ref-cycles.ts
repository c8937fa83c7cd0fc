/**
 * `$ref` chains that never reach a value: `{"$defs": {"a": {"$ref": "#/$defs/a"}}}`, or a loop through
 * `anyOf`. A recursive schema is fine when each turn of it goes one level into the value (through
 * `properties` or `items`: a tree of nodes), since the value is finite; a loop that stays at the same
 * value makes every reader of the schema (Ajv's compiler, the digital human's framework filling defaults)
 * recurse until its stack overflows. Such a loop is refused when the schema is saved, named by the path
 * of the reference that closes it.
 */
import { type Issue, isRecord, issue } from "./schema-walk.js";

/**
 * Keywords whose schemas apply to the same value as the schema they are in: a loop through them alone
 * never ends. Every other keyword's schemas (`properties`, `items`, ...) apply one level into the value.
 */
const IN_PLACE = new Set(["anyOf", "oneOf", "allOf", "not", "if", "then", "else"]);
/** Where definitions live: 2020-12's `$defs`, draft 7's `definitions`. */
const DEFINITIONS = ["$defs", "definitions"] as const;
const LOCAL_REF = /^#\/(\$defs|definitions)\/([^/]+)$/;

/**
 * What a local `$ref` names: `#` (the root) or `#/<$defs|definitions>/<name>`, the name read as Ajv reads
 * a fragment (percent-decoded, then `~1` and `~0`); undefined for any other reference.
 */
export function localRefTarget(ref: unknown): string | undefined {
  if (ref === "#") return ref;
  const match = typeof ref === "string" ? LOCAL_REF.exec(ref) : null;
  if (!match) return undefined;
  try {
    const name = decodeURIComponent(match[2] as string)
      .replaceAll("~1", "/")
      .replaceAll("~0", "~");
    return `#/${match[1]}/${name}`;
  } catch {
    return undefined;
  }
}

interface Reference {
  /** What it names (localRefTarget). */
  target: string;
  /** Where the `$ref` is, for the issue. */
  path: string;
}

/** The loops of `schema`'s definitions that never go into the value, one issue each. */
export function refCycleIssues(schema: Record<string, unknown>, path: string): Issue[] {
  const definitions = new Map<string, { schema: unknown; path: string }>([["#", { schema, path }]]);
  for (const where of DEFINITIONS) {
    const defs = schema[where];
    if (!isRecord(defs)) continue;
    for (const [name, sub] of Object.entries(defs))
      definitions.set(`#/${where}/${name}`, { schema: sub, path: `${path}.${where}.${name}` });
  }
  const edges = new Map<string, Reference[]>();
  for (const [name, def] of definitions) edges.set(name, referencesInPlace(def.schema, def.path));
  const issues: Issue[] = [];
  const done = new Set<string>();
  // Depth-first over the definitions, iteratively: a loop is a reference back to one on the current trail.
  for (const start of definitions.keys()) {
    if (done.has(start)) continue;
    const trail: { name: string; next: number }[] = [{ name: start, next: 0 }];
    const onTrail = new Set([start]);
    while (trail.length > 0) {
      const top = trail.at(-1) as { name: string; next: number };
      const ref = edges.get(top.name)?.[top.next++];
      if (ref === undefined) {
        onTrail.delete(top.name);
        done.add(top.name);
        trail.pop();
      } else if (onTrail.has(ref.target)) {
        const loop = [...trail.slice(trail.findIndex((t) => t.name === ref.target)).map((t) => t.name), ref.target];
        issues.push(issue(ref.path, `loops back through ${loop.join(" -> ")} without going into a property or item: it would never end`));
      } else if (!done.has(ref.target) && edges.has(ref.target)) {
        onTrail.add(ref.target);
        trail.push({ name: ref.target, next: 0 });
      }
    }
  }
  return issues;
}

/** The local references a schema applies to the same value (not under a keyword that goes into it). */
function referencesInPlace(schema: unknown, path: string): Reference[] {
  const found: Reference[] = [];
  const pending: [unknown, string][] = [[schema, path]];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const [node, at] = item;
    if (Array.isArray(node)) {
      node.forEach((sub, i) => {
        pending.push([sub, `${at}.${i}`]);
      });
      continue;
    }
    if (!isRecord(node)) continue;
    for (const [keyword, value] of Object.entries(node)) {
      if (keyword === "$ref") {
        const target = localRefTarget(value);
        if (target !== undefined) found.push({ target, path: `${at}.$ref` });
      } else if (IN_PLACE.has(keyword)) {
        pending.push([value, `${at}.${keyword}`]);
      }
    }
  }
  return found;
}
