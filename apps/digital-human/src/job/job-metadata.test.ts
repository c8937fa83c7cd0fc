import type { DigitalHumanJob } from "@dhs/contract";
import { describe, expect, it } from "vitest";
import { DEFAULT_GREETING, parseJobMetadata } from "./job-metadata.js";

const DEFAULTS = {
  instructions: undefined,
  greeting: DEFAULT_GREETING,
  voice: undefined,
  language: "en",
  llm: { model: undefined, temperature: undefined },
  tools: [],
  knowledge: false,
  memory: undefined,
};

describe("parseJobMetadata", () => {
  it("reads what the service writes", () => {
    // Typed by the contract, so this is what the service writes for as long as it compiles.
    const written: DigitalHumanJob = {
      session_id: "s1",
      account_id: "acct_1",
      digital_human: {
        id: "d1",
        name: "Leo",
        appearance: "d0",
        instructions: "Be brief.",
        greeting: null,
        voice: "rms",
        language: "en",
        llm: { model: "m", temperature: 0.4 },
        tools: [{ type: "end_session", name: "end_call", description: "Ends the call." }],
        knowledge: { document_ids: ["doc_4b1e9c2d7a3f5e60b8c1d2e3"] },
      },
      participant_identity: "grace",
      participant_memory: { facts: ["Name is Grace", "Prefers mornings"] },
      recording: { audio: true },
      max_duration_s: 600,
    };
    expect(parseJobMetadata(JSON.stringify(written), "leo-agent")).toEqual({
      sessionId: "s1",
      digitalHuman: { id: "d1", name: "Leo" },
      persona: {
        instructions: "Be brief.",
        greeting: null,
        voice: "rms",
        language: "en",
        llm: { model: "m", temperature: 0.4 },
        tools: [{ type: "end_session", name: "end_call", description: "Ends the call." }],
        knowledge: true,
        memory: ["Name is Grace", "Prefers mornings"],
      },
      participantIdentity: "grace",
      maxDurationS: 600,
      recording: true,
    });
  });

  it("takes the persona's nulls as the deployment's defaults, but a null greeting as silence", () => {
    const metadata = JSON.stringify({
      digital_human: { id: "d1", name: "Leo", instructions: null, greeting: null, voice: "slt", llm: { model: null, temperature: null } },
    });
    expect(parseJobMetadata(metadata, "leo-agent").persona).toEqual({
      instructions: undefined,
      greeting: null,
      voice: "slt",
      language: "en",
      llm: { model: undefined, temperature: undefined },
      tools: [],
      knowledge: false,
      memory: undefined,
    });
  });

  it("remembers only facts of the contract's shape, and nothing when the job names no memory", () => {
    const job = (participant_memory: unknown) => JSON.stringify({ digital_human: { id: "d1" }, participant_memory });
    expect(parseJobMetadata(JSON.stringify({ digital_human: { id: "d1" } }), "a").persona.memory).toBeUndefined();
    expect(parseJobMetadata(job({ facts: [] }), "a").persona.memory).toEqual([]);
    const odd = ["Name is Ada", 7, "two\nlines", "x".repeat(201), ...Array.from({ length: 12 }, (_, i) => `Fact ${i}`)];
    expect(parseJobMetadata(job({ facts: odd }), "a").persona.memory).toEqual([
      "Name is Ada",
      ...Array.from({ length: 9 }, (_, i) => `Fact ${i}`),
    ]);
    expect(parseJobMetadata(job("yes"), "a").persona.memory).toBeUndefined();
  });

  it("searches documents only when the job names some, of the contract's shape", () => {
    const job = (knowledge: unknown) => JSON.stringify({ digital_human: { id: "d1", knowledge } });
    expect(parseJobMetadata(job({ document_ids: [] }), "a").persona.knowledge).toBe(false);
    expect(parseJobMetadata(job({ document_ids: ["not-a-document", 7] }), "a").persona.knowledge).toBe(false);
    expect(parseJobMetadata(job("yes"), "a").persona.knowledge).toBe(false);
    expect(parseJobMetadata(job({ document_ids: ["doc_4b1e9c2d7a3f5e60b8c1d2e3"] }), "a").persona.knowledge).toBe(true);
  });

  it("records only when the job asks for its audio, as the contract's shape says", () => {
    const job = (recording: unknown) => JSON.stringify({ digital_human: { id: "d1" }, recording });
    expect(parseJobMetadata(JSON.stringify({ digital_human: { id: "d1" } }), "a").recording).toBe(false);
    expect(parseJobMetadata(job({ audio: false }), "a").recording).toBe(false);
    expect(parseJobMetadata(job({ audio: "true" }), "a").recording).toBe(false);
    expect(parseJobMetadata(job(true), "a").recording).toBe(false);
    expect(parseJobMetadata(job({ audio: true }), "a").recording).toBe(true);
  });

  it("ignores fields it does not know (the contract adds them within v1)", () => {
    const metadata = JSON.stringify({
      session_id: "s1",
      digital_human: { id: "d1", name: "Leo", voice: "x" },
      persona: { greeting: "Hi" },
    });
    expect(parseJobMetadata(metadata, "leo-agent")).toMatchObject({ sessionId: "s1", digitalHuman: { id: "d1", name: "Leo" } });
  });

  it("falls back to the agent's name for a dispatch made by hand", () => {
    expect(parseJobMetadata("", "ava")).toEqual({
      sessionId: undefined,
      digitalHuman: { id: "ava", name: "ava" },
      persona: DEFAULTS,
      participantIdentity: undefined,
      maxDurationS: undefined,
      recording: false,
    });
    expect(parseJobMetadata("not json", "ava").digitalHuman.name).toBe("ava");
  });

  it.each([
    [
      "an array",
      "[1]",
      {
        sessionId: undefined,
        digitalHuman: { id: "ava", name: "ava" },
        persona: DEFAULTS,
        participantIdentity: undefined,
        maxDurationS: undefined,
        recording: false,
      },
    ],
    [
      "fields of other types",
      JSON.stringify({ session_id: 1, digital_human: "Leo", participant_identity: null, max_duration_s: "600" }),
      {
        sessionId: undefined,
        digitalHuman: { id: "ava", name: "ava" },
        persona: DEFAULTS,
        participantIdentity: undefined,
        maxDurationS: undefined,
        recording: false,
      },
    ],
    [
      "an empty name and a duration that is not positive",
      JSON.stringify({ digital_human: { id: "d1", name: "" }, max_duration_s: 0 }),
      {
        sessionId: undefined,
        digitalHuman: { id: "d1", name: "ava" },
        persona: DEFAULTS,
        participantIdentity: undefined,
        maxDurationS: undefined,
        recording: false,
      },
    ],
  ])("keeps only the fields with the contract's types, given %s", (_case, metadata, want) => {
    expect(parseJobMetadata(metadata, "ava")).toEqual(want);
  });
});
