/**
 * JSON that enters from outside without being a request (a customer's tool endpoint's answer, an LLM's),
 * read as a request body is held (contract guide, "Errors"), but cleaned rather than refused where that
 * is possible, since nobody can be asked to send it again: it may nest at most MAX_FOREIGN_DEPTH levels
 * (recursive code downstream, JSON.stringify included, would overflow the stack on 5 000), and every
 * string and key is made well-formed with no U+0000, which PostgreSQL's jsonb cannot hold (a lone
 * surrogate, or NUL, becomes U+FFFD), so what is kept can always be written to the history.
 */

/** As deep as a request body's free-form `metadata` may nest (request-guards.ts). */
export const MAX_FOREIGN_DEPTH = 32;

/** The value, or why there is none: not JSON, or nested deeper than MAX_FOREIGN_DEPTH. */
export type ForeignJson = { ok: true; value: unknown } | { ok: false; problem: "not_json" | "too_deep" };

/** `text` parsed and cleaned (keptJson), or what is wrong with it. */
export function readForeignJson(text: string): ForeignJson {
  const parsed = parseForeignJson(text);
  return parsed.ok ? { ok: true, value: keptJson(parsed.value) } : parsed;
}

/** `text` parsed as it is, or what is wrong with it. */
export function parseForeignJson(text: string): ForeignJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON.parse's message: it quotes the text, and a problem is logged where the text is not.
    return { ok: false, problem: "not_json" };
  }
  if (depthOf(value, MAX_FOREIGN_DEPTH) > MAX_FOREIGN_DEPTH) return { ok: false, problem: "too_deep" };
  return { ok: true, value };
}

/** A string as it may be kept: well-formed, U+0000 made U+FFFD. */
export const keptString = (text: string): string => text.toWellFormed().replaceAll("\u0000", "\uFFFD");

/** How deep `value` nests (a scalar is 0), counted no further than `limit + 1`, iteratively. */
function depthOf(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const [node, depth] = item;
    if (node === null || typeof node !== "object") continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** A parsed value (its depth bounded) with every string and key as keptString makes it. */
export function keptJson(value: unknown): unknown {
  if (typeof value === "string") return keptString(value);
  if (Array.isArray(value)) return value.map(keptJson);
  if (value === null || typeof value !== "object") return value;
  // fromEntries, not assignment: a key "__proto__" stays a key.
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [keptString(key), keptJson(child)]));
}
