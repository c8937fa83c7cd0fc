/**
 * A customer's JSON Schema `pattern`, matched in time linear in the text (RE2's guarantee, through re2js,
 * a port of RE2 in plain JavaScript), never by the native RegExp: a backtracking engine takes exponential
 * time on `^(a+)+$` against "aaaa…!", and a schema's check runs on the service's one thread, so one
 * account's pattern could stall every account. A pattern is ECMAScript syntax (JSON Schema's), written for
 * RE2 here: `\uXXXX` and `\u{X}` become `\x{X}`. What RE2 cannot do in linear time (lookaround,
 * backreferences) is refused when the schema is saved, with RE2's reason.
 */
import { RE2JS } from "re2js";

/** The largest compiled program taken: far beyond any pattern a form needs, and bounding a match's cost. */
export const MAX_PROGRAM_SIZE = 5000;

export interface LinearPattern {
  /** Whether `text` holds a match anywhere (JSON Schema patterns are not anchored). */
  test(text: string): boolean;
  toString(): string;
}

/** `pattern` compiled for RE2; throws with RE2's reason when it cannot be. */
export function linearPattern(pattern: string): LinearPattern {
  const compiled = RE2JS.compile(inRe2Syntax(pattern));
  if (compiled.programSize() > MAX_PROGRAM_SIZE)
    throw new Error(`it compiles to ${compiled.programSize()} instructions, more than ${MAX_PROGRAM_SIZE}`);
  // toString as a RegExp's: Ajv keys the patterns it compiled by it, so it must tell them apart.
  return { test: (text) => compiled.test(text), toString: () => `/${pattern}/u` };
}

/** What keeps `pattern` from being checked, or undefined: not ECMAScript, or beyond RE2. */
export function linearPatternProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, "u");
  } catch {
    return "is not a regular expression";
  }
  try {
    linearPattern(pattern);
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^error parsing regexp: /, "") : String(error);
    return `is not a regular expression the service can match in linear time (RE2: no lookaround, no backreferences): ${reason}`;
  }
}

/**
 * Ajv's regular expression engine (its `code.regExp` option) on linearPattern. Ajv asks with the flag
 * "u" alone, which RE2 is in any case (it matches code points).
 */
export const linearRegExpEngine = Object.assign((pattern: string) => linearPattern(pattern), {
  code: 'require("re2js").RE2JS.compile',
});

const HEX = /^[0-9a-fA-F]{4}$/;

/** ECMAScript's escapes RE2 spells otherwise, rewritten; everything else as it is. */
export function inRe2Syntax(pattern: string): string {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char !== "\\") {
      out += char;
      continue;
    }
    const next = pattern[i + 1];
    if (next === "u") {
      const unit = unicodeEscape(pattern, i);
      if (unit) {
        out += `\\x{${unit.codePoint.toString(16)}}`;
        i = unit.end - 1;
        continue;
      }
    }
    out += next === undefined ? char : char + next;
    i += 1;
  }
  return out;
}

/** The `\u` escape at `at` (a surrogate pair of two escapes read as one code point), and where it ends. */
function unicodeEscape(pattern: string, at: number): { codePoint: number; end: number } | undefined {
  if (pattern[at + 2] === "{") {
    const close = pattern.indexOf("}", at + 3);
    const hex = close < 0 ? "" : pattern.slice(at + 3, close);
    return /^[0-9a-fA-F]{1,6}$/.test(hex) ? { codePoint: Number.parseInt(hex, 16), end: close + 1 } : undefined;
  }
  const hex = pattern.slice(at + 2, at + 6);
  if (!HEX.test(hex)) return undefined;
  const unit = Number.parseInt(hex, 16);
  const low = pattern.slice(at + 6, at + 8) === "\\u" ? pattern.slice(at + 8, at + 12) : "";
  if (unit >= 0xd800 && unit <= 0xdbff && HEX.test(low)) {
    const lowUnit = Number.parseInt(low, 16);
    if (lowUnit >= 0xdc00 && lowUnit <= 0xdfff) return { codePoint: ((unit - 0xd800) << 10) + (lowUnit - 0xdc00) + 0x10000, end: at + 12 };
  }
  return { codePoint: unit, end: at + 6 };
}
