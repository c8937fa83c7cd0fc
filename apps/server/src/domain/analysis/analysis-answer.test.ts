import { describe, expect, it } from "vitest";
import type { StoredSegment } from "../transcripts/transcript.js";
import {
  MAX_ANSWER_BYTES,
  MAX_REASON_CHARS,
  MAX_SUMMARY_CHARS,
  NO_REASON,
  readAnalysisAnswer,
  repairMessages,
  uncheckableSchema,
} from "./analysis-answer.js";
import { type AnalysisAsk, analysisRequest } from "./analysis-request.js";

const SEGMENTS: StoredSegment[] = [{ id: "s1", speaker: "participant", text: "I'm Sam.", startedAtMs: 0, endedAtMs: 1 }];
const DATA_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["name", "age", "home"],
  properties: { name: { type: ["string", "null"] }, age: { type: ["integer", "null"] }, home: { $ref: "#/$defs/city" } },
  $defs: { city: { type: "string", enum: ["Oslo", "Bergen"] } },
};
const CRITERIA = ["Booked a visit", "Gave a phone number"];
const ALL: AnalysisAsk = { summary: true, data_schema: DATA_SCHEMA, success_criteria: CRITERIA };
const request = (settings: AnalysisAsk = ALL, facts?: string[]) =>
  analysisRequest({ settings, segments: SEGMENTS, digitalHumanName: "Ava", memory: facts ? { facts } : undefined });

const verdicts = [
  { index: 1, result: "unknown", reason: "Not\nsaid." },
  { index: 0, result: "met", reason: "Booked Tuesday." },
];
const GOOD = { summary: "  Sam booked a visit. ", data: { name: "Sam", age: null, home: "Oslo" }, success_criteria: verdicts };
const read = (answer: unknown, r = request()) => readAnalysisAnswer(typeof answer === "string" ? answer : JSON.stringify(answer), r);
const problem = (answer: unknown, r = request()) => {
  const outcome = read(answer, r);
  return outcome.ok ? "ok" : outcome.problem;
};

describe("readAnalysisAnswer", () => {
  it("reads a valid answer, criteria mapped back to their texts in their order", () => {
    expect(read(GOOD)).toEqual({
      ok: true,
      result: {
        summary: "Sam booked a visit.",
        data: { name: "Sam", age: null, home: "Oslo" },
        success_criteria: [
          { criterion: "Booked a visit", result: "met", reason: "Booked Tuesday." },
          { criterion: "Gave a phone number", result: "unknown", reason: "Not said." },
        ],
        memory_facts: null,
      },
    });
  });

  it("shows only what the contract can carry: an empty reason says none was given, an empty summary is null, hidden characters are dropped", () => {
    // The contract's patterns for a reason or a fact (one line) and a summary (line breaks kept).
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the contract's pattern, about control characters
    const line = /^[^\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]+$/;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the contract's pattern, about control characters
    const text = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]+$/;
    const answer = {
      ...GOOD,
      summary: " \u0000\u202e ",
      success_criteria: [
        { index: 0, result: "unknown", reason: "" },
        { index: 1, result: "met", reason: "Gave \u202eit\u0007 twice." },
      ],
      memory_facts: ["Lives in \u2066Oslo\u2069", "\u0000"],
    };
    const outcome = read(answer, request(ALL, []));
    if (!outcome.ok) throw new Error(outcome.problem);
    expect(outcome.result.summary).toBeNull();
    expect(outcome.result.success_criteria.map((v) => v.reason)).toEqual([NO_REASON, "Gave it twice."]);
    expect(outcome.result.memory_facts).toEqual(["Lives in Oslo"]);
    for (const verdict of outcome.result.success_criteria) expect(verdict.reason).toMatch(line);
    const kept = read({ ...GOOD, summary: "Sam\r\nbooked.\u202e" });
    expect(kept.ok && kept.result.summary).toBe("Sam\r\nbooked.");
    expect(kept.ok && kept.result.summary).toMatch(text);
  });

  it("gives null for what was not asked", () => {
    const r = request({ summary: false, data_schema: null, success_criteria: [] }, []);
    expect(read({ memory_facts: [] }, r)).toEqual({
      ok: true,
      result: { summary: null, data: null, success_criteria: [], memory_facts: [] },
    });
  });

  it("refuses what is not JSON", () => {
    expect(problem("Sure! Here is the JSON: {")).toBe("the answer is not one JSON value");
    expect(problem('{"summary": "a"} {"summary": "b"}')).toBe("the answer is not one JSON value");
  });

  it("refuses an answer off the schema, naming where", () => {
    expect(problem({ ...GOOD, data: { ...GOOD.data, age: "thirty" } })).toBe("the answer at /data/age must be integer,null");
    expect(problem({ ...GOOD, data: { ...GOOD.data, home: "Paris" } })).toBe(
      'the answer at /data/home must be equal to one of the allowed values: "Oslo", "Bergen"',
    );
    expect(problem({ ...GOOD, extra: 1 })).toBe("the answer must NOT have additional properties ('extra')");
    const { summary: _, ...noSummary } = GOOD;
    expect(problem(noSummary)).toBe("the answer must have required property 'summary'");
    expect(problem({ ...GOOD, success_criteria: [verdicts[0]] })).toBe("the answer at /success_criteria must NOT have fewer than 2 items");
    expect(problem({ ...GOOD, success_criteria: [verdicts[0], { ...verdicts[1], result: "maybe" }] })).toMatch(
      /^the answer at \/success_criteria\/1\/result must be equal to one of the allowed values: "met", "not_met", "unknown"$/,
    );
    expect(problem({ ...GOOD, success_criteria: [verdicts[0], { ...verdicts[1], index: 2 }] })).toBe(
      "the answer at /success_criteria/1/index must be <= 1",
    );
  });

  it("refuses criteria answered twice or not at all", () => {
    const twice = [verdicts[0], { ...verdicts[0], result: "met" }];
    expect(problem({ ...GOOD, success_criteria: twice })).toBe(
      "the answer's success_criteria must answer each criterion exactly once: index 1 answered more than once; index 0 not answered",
    );
  });

  it("holds the summary and each reason to their bounds, a reason to one line", () => {
    const long = {
      ...GOOD,
      summary: "s".repeat(5000),
      success_criteria: [{ ...verdicts[1], reason: `a\n\nb ${"r".repeat(500)}` }, verdicts[0]],
    };
    const outcome = read(long);
    if (!outcome.ok) throw new Error(outcome.problem);
    expect([...(outcome.result.summary ?? "")]).toHaveLength(MAX_SUMMARY_CHARS);
    expect(outcome.result.summary?.endsWith("…")).toBe(true);
    const reason = outcome.result.success_criteria[0]?.reason ?? "";
    expect([...reason]).toHaveLength(MAX_REASON_CHARS);
    expect(reason).toMatch(/^a b r+…$/);
  });

  it("keeps at most 10 facts, one line each, none empty, repeated or too long", () => {
    const r = request({ summary: false, data_schema: null, success_criteria: [] }, ["Name is Sam"]);
    const facts = [
      " Name is  Sam ",
      "name is sam",
      "",
      "   ",
      "x".repeat(201),
      "y".repeat(200),
      ...Array.from({ length: 10 }, (_, i) => `Fact ${i}`),
    ];
    // The schema bounds the list at 10: this answer's 16 must be refused first, then a list of 10 read.
    expect(problem({ memory_facts: facts }, r)).toBe("the answer at /memory_facts must NOT have more than 10 items");
    const outcome = read({ memory_facts: facts.slice(0, 10) }, r);
    expect(outcome).toEqual({
      ok: true,
      result: {
        summary: null,
        data: null,
        success_criteria: [],
        memory_facts: ["Name is Sam", "y".repeat(200), "Fact 0", "Fact 1", "Fact 2", "Fact 3"],
      },
    });
  });

  it("checks each request against its own schema", () => {
    const summaryOnly = request({ summary: true, data_schema: null, success_criteria: [] });
    expect(problem({ summary: "ok" }, summaryOnly)).toBe("ok");
    expect(problem({ summary: "ok" })).toBe("the answer must have required property 'data'");
    expect(problem({ summary: "ok" }, summaryOnly)).toBe("ok");
  });
});

describe("repairMessages", () => {
  it("sends the conversation, the bad answer, and what was wrong with it", () => {
    const r = request();
    const messages = repairMessages(r, '{"summary": 1}', "the answer at /summary must be string");
    expect(messages.slice(0, r.messages.length)).toEqual(r.messages);
    expect(messages.slice(r.messages.length)).toEqual([
      { role: "assistant", content: '{"summary": 1}' },
      {
        role: "user",
        content:
          "That answer cannot be used: the answer at /summary must be string. Answer again with the corrected JSON object only, following the schema, and nothing else.",
      },
    ]);
  });
});

describe("an answer an attacker shaped", () => {
  const withData = (data_schema: Record<string, unknown>) => request({ summary: false, data_schema, success_criteria: [] });
  const codeSchema = (pattern: string) => ({
    type: "object",
    additionalProperties: false,
    required: ["code"],
    properties: { code: { type: "string", pattern } },
  });

  it("is checked against a backtracking pattern in linear time: the native RegExp would take hours on this", () => {
    const asked = withData(codeSchema("^(a+)+$"));
    expect(problem({ data: { code: `${"a".repeat(40)}!` } }, asked)).toBe('the answer at /data/code must match pattern "^(a+)+$"');
    expect(problem({ data: { code: "a".repeat(60_000) } }, asked)).toBe("ok");
  });

  it("is held to each of its patterns, not one of them for all (Ajv keys compiled patterns by their text)", () => {
    const asked = withData({
      type: "object",
      additionalProperties: false,
      required: ["zip", "city"],
      properties: { zip: { type: "string", pattern: "^\\d{4}$" }, city: { type: "string", pattern: "^[A-Z][a-z]+$" } },
    });
    expect(problem({ data: { zip: "0150", city: "Oslo" } }, asked)).toBe("ok");
    expect(problem({ data: { zip: "Oslo", city: "Oslo" } }, asked)).toMatch(/\/data\/zip must match/);
    expect(problem({ data: { zip: "0150", city: "0150" } }, asked)).toMatch(/\/data\/city must match/);
  });

  it("is refused unread beyond 64 KiB and beyond 32 levels", () => {
    const asked = withData(codeSchema("^a+$"));
    expect(problem({ data: { code: "a".repeat(MAX_ANSWER_BYTES) } }, asked)).toMatch(/^the answer is \d+ bytes, more than 65536$/);
    expect(problem(`{"data":${"[".repeat(5000)}${"]".repeat(5000)}}`, asked)).toBe("the answer nests more than 32 levels deep");
  });

  it("has its data kept as the history can hold it, NUL and lone surrogates made U+FFFD before it is checked", () => {
    const asked = withData(codeSchema("^[^\\u0000]+$"));
    const outcome = read('{"data":{"code":"a\\u0000\\ud800"}}', asked);
    expect(outcome).toEqual({ ok: true, result: expect.objectContaining({ data: { code: "a\uFFFD\uFFFD" } }) });
  });

  it("cannot be checked against a schema kept from before loops and lookaround were refused: said before any LLM is asked", () => {
    expect(uncheckableSchema(withData(codeSchema("^(?=a)a$")))).toMatch(/pattern|regexp/i);
    const loop = { ...codeSchema("^a$"), $defs: { a: { $ref: "#/$defs/a" } } };
    expect(uncheckableSchema(withData(loop))).toMatch(/^data_schema\.\$defs\.a\.\$ref loops back/);
    expect(uncheckableSchema(withData(codeSchema("^a$")))).toBeUndefined();
  });
});
