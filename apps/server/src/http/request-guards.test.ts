import { describe, expect, it } from "vitest";
import { findLoneSurrogate } from "./request-guards.js";

describe("findLoneSurrogate", () => {
  it.each([
    ["a plain object", { a: "x", b: ["y", 1, null, { c: "z" }] }, undefined],
    ["well-formed astral characters", { a: "𝕏😀" }, undefined],
    ["a lone high surrogate in a value", { a: { b: "x\ud800" } }, "a.b"],
    ["a lone low surrogate in an array", { tags: ["ok", "\udfff"] }, "tags.1"],
    ["a lone surrogate in a key", { "k\ud800": 1 }, "k\ufffd"],
    ["a top-level string", "\ud800", ""],
  ])("%s", (_name, value, want) => {
    expect(findLoneSurrogate(value)).toBe(want);
  });

  it("follows nesting far deeper than the call stack", () => {
    let value: unknown = "\ud800";
    for (let i = 0; i < 200_000; i++) value = [value];
    expect(findLoneSurrogate(value)).toBeDefined();
  });
});
