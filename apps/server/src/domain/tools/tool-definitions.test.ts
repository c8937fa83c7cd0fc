import type { Tool } from "@dhs/contract";
import { describe, expect, it } from "vitest";
import { MAX_PARAMETERS_BYTES, parametersIssues, toolIssues } from "./tool-definitions.js";

const at = (path: string, message: string) => ({ location: "body", path, message });

describe("a tool's parameters", () => {
  it("takes an object schema with the keywords of function calling, nested within bounds", () => {
    const parameters = {
      type: "object",
      properties: {
        order_id: { type: "string", pattern: "^A-[0-9]+$", minLength: 3, default: "A-1" },
        items: { type: "array", items: { type: "object", properties: { sku: { type: "string" } }, additionalProperties: false } },
        note: { anyOf: [{ type: "string" }, { type: "null" }] },
        extra: { type: "object", additionalProperties: { type: "integer" } },
      },
      required: ["order_id"],
      $defs: { money: { type: "number", minimum: 0 } },
      definitions: { id: { type: "string" } },
    };
    expect(parametersIssues(parameters, "tools.0.parameters")).toEqual([]);
  });

  it("refuses a root that is not an object, an unknown keyword, a bad type and required, by path", () => {
    expect(parametersIssues({ type: "array", allOf: [], properties: { a: { type: "text" } }, required: "a" }, "p")).toEqual([
      at("p.type", 'must be "object": the arguments are a JSON object'),
      at("p.allOf", "is not a keyword of OpenAI's function calling schemas"),
      at("p.properties.a.type", "is not one of string, number, integer, boolean, array, object, null (or a list of them)"),
      at("p.required", "is not a list of names"),
    ]);
  });

  it("refuses maps, lists and schemas of the wrong shape", () => {
    expect(parametersIssues({ type: "object", properties: [], anyOf: [], items: 3 }, "p")).toEqual([
      at("p.properties", "is not an object of schemas"),
      at("p.anyOf", "is not a list of schemas"),
      at("p.items", "is not a JSON Schema object"),
    ]);
  });

  it("takes a boolean only as additionalProperties (by its path)", () => {
    expect(parametersIssues({ type: "object", additionalProperties: true, properties: { x: true } }, "p")).toEqual([
      at("p.properties.x", "is not a JSON Schema object"),
    ]);
    expect(parametersIssues({ type: "object", properties: { additionalProperties: false } }, "p")).toEqual([]);
  });

  it("refuses schemas nested more than 8 deep and more than 4096 bytes", () => {
    let nested: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 8; i++) nested = { type: "object", properties: { x: nested } };
    expect(parametersIssues(nested, "p")).toEqual([at(`p${".properties.x".repeat(8)}`, "nests schemas more than 8 deep")]);
    const big = { type: "object", description: "d".repeat(MAX_PARAMETERS_BYTES) };
    expect(parametersIssues(big, "p")).toEqual([at("p", `is ${MAX_PARAMETERS_BYTES + 34} bytes as JSON, more than 4096`)]);
  });

  it("stops after 20 problems", () => {
    const properties = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, { type: "text" }]));
    expect(parametersIssues({ type: "object", properties }, "p")).toHaveLength(20);
  });
  it("refuses a $ref loop the digital human's framework would recurse on for ever, and a pattern that is none", () => {
    const loop = { type: "object", properties: { a: { $ref: "#/$defs/a" } }, $defs: { a: { anyOf: [{ $ref: "#/$defs/a" }] } } };
    expect(parametersIssues(loop, "p")).toEqual([
      { location: "body", path: "p.$defs.a.anyOf.0.$ref", message: expect.stringMatching(/^loops back through #\/\$defs\/a/) },
    ]);
    const tree = {
      type: "object",
      properties: { n: { $ref: "#/definitions/n" } },
      definitions: { n: { type: "object", properties: { n: { $ref: "#/definitions/n" } } } },
    };
    expect(parametersIssues(tree, "p")).toEqual([]);
    expect(parametersIssues({ type: "object", properties: { a: { type: "string", pattern: "(" } } }, "p")).toEqual([
      { location: "body", path: "p.properties.a.pattern", message: "is not a regular expression" },
    ]);
  });
});

describe("a list of tools", () => {
  it("names a name twice, parameters' problems and a second end_session by path", () => {
    const tools = [
      { type: "client", name: "same", description: "One." },
      { type: "client", name: "same", description: "Two.", parameters: { type: "array" } },
      { type: "end_session", name: "bye" },
      { type: "end_session", name: "bye2" },
    ] as Tool[];
    expect(toolIssues(tools)).toEqual([
      at("tools.1.name", "is the name of tools.0 too; names must be unique"),
      at("tools.1.parameters.type", 'must be "object": the arguments are a JSON object'),
      at("tools", "has more than one end_session tool"),
    ]);
  });
});
