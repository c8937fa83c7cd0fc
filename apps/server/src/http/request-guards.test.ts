import { readFileSync } from "node:fs";
import { openapiDocumentPath } from "@dhs/contract";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { findIllFormed, METADATA_MAX_DEPTH } from "./request-guards.js";

const SURROGATE = "must be well-formed Unicode (no lone surrogates)";
const NUL = "must not contain U+0000 (NUL)";

/** A body whose metadata nests `levels` deep (metadata itself is level 1). */
function metadataOfDepth(levels: number): unknown {
  let value: unknown = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return { metadata: value };
}

describe("findIllFormed", () => {
  it.each([
    ["a plain object", { a: "x", b: ["y", 1, -2.5e300, null, { c: "z" }] }, undefined],
    ["well-formed astral characters", { a: "𝕏😀" }, undefined],
    ["a lone high surrogate in a value", { a: { b: "x\ud800" } }, { path: "a.b", message: SURROGATE }],
    ["a lone low surrogate in an array", { tags: ["ok", "\udfff"] }, { path: "tags.1", message: SURROGATE }],
    ["a lone surrogate in a key", { "k\ud800": 1 }, { path: "k\ufffd", message: SURROGATE }],
    ["a top-level string", "\ud800", { path: "", message: SURROGATE }],
    ["a number read as Infinity", { metadata: { n: JSON.parse("1e400") } }, { path: "metadata.n", message: "must be a finite number" }],
    [
      "a number read as -Infinity",
      { metadata: { list: [JSON.parse("-1e999")] } },
      { path: "metadata.list.0", message: "must be a finite number" },
    ],
    ["metadata at the deepest nesting allowed", metadataOfDepth(METADATA_MAX_DEPTH), undefined],
    ["U+0000 in a value", { metadata: { note: "a\u0000b" } }, { path: "metadata.note", message: NUL }],
    ["U+0000 in a key, shown escaped", { metadata: { "k\u0000": "v" } }, { path: "metadata.k\\u0000", message: NUL }],
    ["U+0000 alone in an array", { tags: ["\u0000"] }, { path: "tags.0", message: NUL }],
    ["other control characters (the contract's patterns say where)", { metadata: { note: "a\u0001\u007f" } }, undefined],
  ])("%s", (_name, value, want) => {
    expect(findIllFormed(value)).toEqual(want);
  });

  it("refuses metadata one level deeper than allowed, naming where", () => {
    const problem = findIllFormed(metadataOfDepth(METADATA_MAX_DEPTH + 1));
    expect(problem).toEqual({
      path: ["metadata", ...Array(METADATA_MAX_DEPTH).fill("a")].join("."),
      message: "must nest at most 32 levels deep (metadata is level 1)",
    });
  });

  it("judges nesting far deeper than the call stack without recursion", () => {
    let value: unknown = "\ud800";
    for (let i = 0; i < 200_000; i++) value = [value];
    expect(findIllFormed(value)?.message).toMatch(/nest at most/);
  });
});

describe("METADATA_MAX_DEPTH", () => {
  it("is the contract's x-max-depth of SessionCreate.metadata", () => {
    const contract = parse(readFileSync(openapiDocumentPath, "utf8")) as {
      components: { schemas: { SessionCreate: { properties: { metadata: Record<string, unknown> } } } };
    };
    expect(contract.components.schemas.SessionCreate.properties.metadata["x-max-depth"]).toBe(METADATA_MAX_DEPTH);
  });
});
