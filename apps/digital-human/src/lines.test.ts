import { describe, expect, it } from "vitest";
import { parseJobMetadata } from "./job.js";
import { acknowledgement, farewellOnLeaving, greeting, sentences, spokenName } from "./lines.js";

describe("what the digital human says", () => {
  it("greets the participant by their identity, as it is spoken, and says its own name", () => {
    expect(greeting("ada_lovelace-42", "Ava")).toMatch(/^Hello ada lovelace 42! I'm Ava\./);
    expect(farewellOnLeaving("grace")).toContain("Goodbye, grace");
    expect(spokenName("---")).toBe("there");
  });

  it("never acknowledges twice in a row with the same words", () => {
    let previous: string | undefined;
    for (let i = 0; i < 50; i++) {
      const next = acknowledgement(previous, () => (i % 7) / 7);
      expect(next).not.toBe(previous);
      previous = next;
    }
  });
});

describe("parseJobMetadata", () => {
  it("reads what the service writes", () => {
    const metadata = JSON.stringify({
      session_id: "s1",
      account_id: "acct_1",
      digital_human: { id: "d1", name: "Leo" },
      participant_identity: "grace",
      max_duration_s: 600,
    });
    expect(parseJobMetadata(metadata, "leo-agent")).toEqual({
      sessionId: "s1",
      digitalHuman: { id: "d1", name: "Leo" },
      participantIdentity: "grace",
      maxDurationS: 600,
    });
  });

  it("falls back to the agent's name for a dispatch made by hand", () => {
    expect(parseJobMetadata("", "ava")).toEqual({
      sessionId: undefined,
      digitalHuman: { id: "ava", name: "ava" },
      participantIdentity: undefined,
      maxDurationS: undefined,
    });
    expect(parseJobMetadata("not json", "ava").digitalHuman.name).toBe("ava");
  });
});

describe("sentences", () => {
  it.each([
    ["Hello ada! I'm Ava. It's good to meet you.", ["Hello ada!", "I'm Ava.", "It's good to meet you."]],
    ["Mm-hmm, go on.", ["Mm-hmm, go on."]],
    ["no end", ["no end"]],
    ["Wait... what?! Fine", ["Wait...", "what?!", "Fine"]],
    ["", []],
  ])("cuts %j into its sentences", (line, want) => {
    expect(sentences(line)).toEqual(want);
  });
});
