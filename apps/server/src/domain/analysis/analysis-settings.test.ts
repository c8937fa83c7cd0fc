import { describe, expect, it } from "vitest";
import { type AnalysisSettings, analysisIssues, analysisWithDefaults } from "./analysis-settings.js";

const at = (path: string, message: string) => ({ location: "body", path, message });
const closed = (properties: Record<string, unknown>) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
const settings = (overrides: Partial<AnalysisSettings>): AnalysisSettings => ({
  summary: true,
  data_schema: null,
  success_criteria: [],
  ...overrides,
});

const LEAD = closed({
  name: { type: "string" },
  email: { type: "string", format: "email" },
  phone: { type: ["string", "null"] },
  interest: { type: "string", enum: ["rooms", "events", "spa"] },
});

describe("analysis settings with their defaults", () => {
  it("keep null (or absent) as null: no analysis", () => {
    expect(analysisWithDefaults(null)).toBeNull();
    expect(analysisWithDefaults(undefined)).toBeNull();
  });

  it("fill a summary, no data and no criteria, and trim the criteria", () => {
    expect(analysisWithDefaults({})).toEqual({ summary: true, data_schema: null, success_criteria: [] });
    expect(analysisWithDefaults({ summary: false, data_schema: LEAD, success_criteria: ["  Booked a room \n"] })).toEqual({
      summary: false,
      data_schema: LEAD,
      success_criteria: ["Booked a room"],
    });
  });
});

describe("analysis settings' problems", () => {
  it("are none for a lead's schema with criteria, or for a summary alone", () => {
    expect(analysisIssues(settings({ data_schema: LEAD, success_criteria: ["The caller left an email", "Booked a room"] }))).toEqual([]);
    expect(analysisIssues(settings({}))).toEqual([]);
  });

  it("refuse settings that ask for nothing", () => {
    expect(analysisIssues(settings({ summary: false }))).toEqual([at("analysis", "asks for nothing: set analysis to null instead")]);
    expect(analysisIssues(settings({ summary: false, success_criteria: ["Booked"] }))).toEqual([]);
  });

  it("name the data schema's problems by their path under analysis.data_schema", () => {
    const schema = closed({ email: { type: "email" }, address: { type: "object", properties: { city: { type: "string" } } } });
    expect(analysisIssues(settings({ data_schema: schema }))).toEqual([
      at(
        "analysis.data_schema.properties.email.type",
        "is not one of string, number, integer, boolean, array, object, null (or a list of them)",
      ),
      at(
        "analysis.data_schema.properties.address.additionalProperties",
        "is missing: strict structured outputs need it false in every object",
      ),
      at(
        "analysis.data_schema.properties.address.required",
        "must list every property, and misses city: strict structured outputs fill every field; " +
          'an optional field is written with "null" among its types, e.g. "type": ["string", "null"]',
      ),
    ]);
    expect(analysisIssues(settings({ data_schema: [] as unknown as Record<string, unknown> }), "body.analysis")).toEqual([
      at("body.analysis.data_schema", "is not a JSON Schema object"),
    ]);
  });

  it("hold the data schema to 8 KiB, 5 levels, 100 properties and 250 enum values", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 5; i++) deep = closed({ x: deep });
    expect(analysisIssues(settings({ data_schema: deep }))).toEqual([
      at(`analysis.data_schema${".properties.x".repeat(5)}`, "nests schemas more than 5 deep"),
    ]);
    const wide = closed(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, { type: "string", enum: ["a", "b", "c"] }])));
    expect(analysisIssues(settings({ data_schema: wide }))).toEqual([
      at("analysis.data_schema", "has 101 properties in all, more than 100"),
      at("analysis.data_schema", "has 303 enum values in all, more than 250"),
    ]);
    const big = closed({ note: { type: "string", description: "d".repeat(8192) } });
    expect(analysisIssues(settings({ data_schema: big }))).toEqual([
      at("analysis.data_schema", `is ${Buffer.byteLength(JSON.stringify(big))} bytes as JSON, more than 8192`),
    ]);
  });

  it("take at most 10 criteria", () => {
    const criteria = Array.from({ length: 11 }, (_, i) => `Criterion ${i}`);
    expect(analysisIssues(settings({ success_criteria: criteria }))).toEqual([
      at("analysis.success_criteria", "has 11 criteria, more than 10"),
    ]);
    expect(analysisIssues(settings({ success_criteria: criteria.slice(0, 10) }))).toEqual([]);
  });

  it("name each bad criterion by its index: empty, too long, control characters, unseen, the same twice", () => {
    const criteria = [
      "Booked a room",
      "   ",
      "é".repeat(301),
      "Two\nlines",
      "Tab\there",
      "\u202eevil",
      "booked a ROOM ",
      "é".repeat(300),
      7 as unknown as string,
    ];
    expect(analysisIssues(settings({ success_criteria: criteria }))).toEqual([
      at("analysis.success_criteria.1", "is empty"),
      at("analysis.success_criteria.2", "is 301 characters, more than 300"),
      at("analysis.success_criteria.3", "has a control character: a criterion is one line of text"),
      at("analysis.success_criteria.4", "has a control character: a criterion is one line of text"),
      at("analysis.success_criteria.5", "has a bidirectional embedding, override or isolate character"),
      at("analysis.success_criteria.6", "is the same as analysis.success_criteria.0; criteria must differ (ignoring case)"),
      at("analysis.success_criteria.8", "is not a string"),
    ]);
  });

  it("count a criterion's characters, not its UTF-16 units", () => {
    expect(analysisIssues(settings({ success_criteria: ["😀".repeat(300)] }))).toEqual([]);
  });
});
