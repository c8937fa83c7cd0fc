import { describe, expect, it } from "vitest";
import { localRefTarget, refCycleIssues } from "./ref-cycles.js";

const loops = (schema: Record<string, unknown>) => refCycleIssues(schema, "s").map((i) => `${i.path}: ${i.message}`);

describe("$ref loops that never reach a value", () => {
  it("are found: a definition naming itself, through anyOf, through two definitions, at the root", () => {
    expect(loops({ $defs: { a: { $ref: "#/$defs/a" } } })).toEqual([
      "s.$defs.a.$ref: loops back through #/$defs/a -> #/$defs/a without going into a property or item: it would never end",
    ]);
    expect(loops({ $defs: { a: { anyOf: [{ type: "null" }, { $ref: "#/$defs/a" }] } } })).toEqual([
      expect.stringMatching(/^s\.\$defs\.a\.anyOf\.1\.\$ref: loops back through #\/\$defs\/a -> #\/\$defs\/a/),
    ]);
    expect(loops({ $defs: { a: { $ref: "#/$defs/b" }, b: { allOf: [{ $ref: "#/$defs/a" }] } } })).toEqual([
      expect.stringMatching(/^s\.\$defs\.b\.allOf\.0\.\$ref: loops back through #\/\$defs\/a -> #\/\$defs\/b -> #\/\$defs\/a/),
    ]);
    expect(loops({ type: "object", anyOf: [{ $ref: "#" }] })).toHaveLength(1);
    expect(loops({ definitions: { a: { not: { $ref: "#/definitions/a" } } } })).toHaveLength(1);
  });

  it("are found under the name Ajv reads a reference by (percent-decoded, ~1 and ~0)", () => {
    expect(localRefTarget("#/$defs/%61")).toBe("#/$defs/a");
    expect(localRefTarget("#/$defs/a~1b~0")).toBe("#/$defs/a/b~");
    expect(localRefTarget("#/$defs/%E0%A4%A")).toBeUndefined();
    expect(localRefTarget("https://example.com/s.json")).toBeUndefined();
    expect(loops({ $defs: { a: { $ref: "#/$defs/%61" }, "%61": { type: "string" } } })).toHaveLength(1);
  });

  it("are not recursion that goes into the value: a tree of nodes, a list of itself, a linked list", () => {
    expect(
      loops({ $defs: { node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } } } } }),
    ).toEqual([]);
    expect(
      loops({ $defs: { next: { anyOf: [{ type: "null" }, { type: "object", properties: { next: { $ref: "#/$defs/next" } } }] } } }),
    ).toEqual([]);
    expect(loops({ type: "object", properties: { self: { $ref: "#" } } })).toEqual([]);
    expect(loops({ $defs: { a: { $ref: "#/$defs/b" }, b: { type: "string" } } })).toEqual([]);
  });

  it("look only at keywords that apply schemas: a $ref in an enum's values is data", () => {
    expect(loops({ $defs: { a: { enum: [{ $ref: "#/$defs/a" }] } } })).toEqual([]);
  });
});
