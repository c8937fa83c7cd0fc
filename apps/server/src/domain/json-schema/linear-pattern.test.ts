import { describe, expect, it } from "vitest";
import { inRe2Syntax, linearPattern, linearPatternProblem, MAX_PROGRAM_SIZE } from "./linear-pattern.js";

describe("a customer's pattern, matched in linear time", () => {
  it.each([
    ["\\u00e9", "\\x{e9}"],
    ["[\\u0041-\\u005A]+", "[\\x{41}-\\x{5a}]+"],
    ["\\u{1F600}", "\\x{1f600}"],
    ["\\uD83D\\uDE00", "\\x{1f600}"],
    ["\\\\u0041", "\\\\u0041"],
    ["^\\d{3}-\\w+$", "^\\d{3}-\\w+$"],
  ])("is written for RE2: %s as %s", (given, want) => {
    expect(inRe2Syntax(given)).toBe(want);
  });

  it("matches as ECMAScript does, unanchored, code points and escapes included", () => {
    expect(linearPattern("\\u00e9t\\u00e9").test("un été chaud")).toBe(true);
    expect(linearPattern("^[A-Z]{2}-\\d+$").test("NO-1234")).toBe(true);
    expect(linearPattern("^[A-Z]{2}-\\d+$").test("no-1234")).toBe(false);
    expect(linearPattern("^.$").test("😀")).toBe(true);
  });

  it("answers a pattern a backtracking engine takes exponential time on at once, at any length", () => {
    // The native RegExp takes about 2^n steps here: at 40 characters, hours.
    for (const n of [40, 10_000, 100_000]) expect(linearPattern("^(a+)+$").test(`${"a".repeat(n)}!`)).toBe(false);
    expect(linearPattern("^(a|aa)*$").test(`${"a".repeat(100_000)}!`)).toBe(false);
  });

  it("refuses what RE2 cannot match in linear time, saying why, and what is not a pattern at all", () => {
    expect(linearPatternProblem("^(?=.*\\d).+$")).toMatch(/linear time .*lookaround.*`\(\?=`/);
    expect(linearPatternProblem("(?<!x)y")).toMatch(/linear time/);
    expect(linearPatternProblem("(a)\\1")).toMatch(/backreferences.*\\1/);
    expect(linearPatternProblem("(")).toBe("is not a regular expression");
    expect(linearPatternProblem("^(a+)+$")).toBeUndefined();
    expect(linearPatternProblem(`(?:${"[a-z]".repeat(MAX_PROGRAM_SIZE)})`)).toMatch(/instructions, more than/);
  });
});
