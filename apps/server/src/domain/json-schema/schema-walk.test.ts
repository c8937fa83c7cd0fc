import { describe, expect, it } from "vitest";
import { MAX_ISSUES, type SchemaNode, type SchemaWalk, walkSchema } from "./schema-walk.js";

const at = (path: string, message: string) => ({ location: "body" as const, path, message });

const walk = (overrides: Partial<SchemaWalk> = {}): SchemaWalk => ({
  keywords: {
    schema: new Set(["items", "not"]),
    schemaMap: new Set(["properties"]),
    schemaList: new Set(["anyOf"]),
    plain: new Set(["description"]),
  },
  maxDepth: 3,
  unknownKeyword: "is not taken here",
  allowsBoolean: () => false,
  ...overrides,
});

describe("walking a schema", () => {
  it("walks schemas, maps and lists of them and takes the caller's plain keywords", () => {
    const schema = {
      type: ["object", "null"],
      description: "d",
      required: ["a"],
      properties: { a: { type: "array", items: { type: "string" } }, b: { anyOf: [{ type: "null" }] } },
    };
    expect(walkSchema(schema, "s", walk())).toEqual([]);
  });

  it("names keywords it does not take, bad types and required, and values of the wrong shape, by path", () => {
    const schema = { type: "text", required: [1], title: "t", properties: { a: [] }, anyOf: [], items: 1 };
    expect(walkSchema(schema, "s", walk())).toEqual([
      at("s.type", "is not one of string, number, integer, boolean, array, object, null (or a list of them)"),
      at("s.required", "is not a list of names"),
      at("s.title", "is not taken here"),
      at("s.properties.a", "is not a JSON Schema object"),
      at("s.anyOf", "is not a list of schemas"),
      at("s.items", "is not a JSON Schema object"),
    ]);
    expect(walkSchema({ type: [] }, "s", walk())).toEqual([
      at("s.type", "is not one of string, number, integer, boolean, array, object, null (or a list of them)"),
    ]);
  });

  it("stops at the depth bound, naming the first schema too deep", () => {
    expect(walkSchema({ items: { items: { type: "string" } } }, "s", walk())).toEqual([]);
    expect(walkSchema({ items: { items: { items: { items: {} } } } }, "s", walk())).toEqual([
      at("s.items.items.items", "nests schemas more than 3 deep"),
    ]);
  });

  it("takes a boolean for a schema only where the caller says, knowing the keyword it came by", () => {
    const allowsBoolean = ({ via }: SchemaNode) => via === "not";
    expect(walkSchema({ not: true, items: false }, "s", walk({ allowsBoolean }))).toEqual([at("s.items", "is not a JSON Schema object")]);
    expect(walkSchema(true, "s", walk({ allowsBoolean }))).toEqual([at("s", "is not a JSON Schema object")]);
  });

  it("runs the caller's check on every schema object, with its path, depth and keyword", () => {
    const seen: SchemaNode[] = [];
    walkSchema({ properties: { a: { items: {} } }, anyOf: [{}] }, "s", walk({ check: (_, node) => seen.push(node) }));
    expect(seen).toEqual([
      { path: "s", depth: 1 },
      { path: "s.properties.a", depth: 2, via: "properties" },
      { path: "s.properties.a.items", depth: 3, via: "items" },
      { path: "s.anyOf.0", depth: 2, via: "anyOf" },
    ]);
  });

  it("adds to the issues given and stops once they reach MAX_ISSUES", () => {
    const given = [at("s", "earlier")];
    expect(walkSchema({ title: 1 }, "s", walk(), given)).toBe(given);
    expect(given).toEqual([at("s", "earlier"), at("s.title", "is not taken here")]);
    const properties = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, { type: "text" }]));
    expect(walkSchema({ properties }, "s", walk())).toHaveLength(MAX_ISSUES);
  });
});
