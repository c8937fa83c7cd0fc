import { describe, expect, it } from "vitest";
import { DEFAULT_GREETING } from "../job/job-metadata.js";
import { acknowledgement, farewellOnLeaving, greeting, spokenName } from "./lines.js";

describe("what the digital human says", () => {
  it("greets the participant by their identity, as it is spoken, and says its own name", () => {
    expect(greeting(DEFAULT_GREETING, "ada_lovelace-42", "Ava")).toBe(
      "Hello ada lovelace 42! I'm Ava. It's good to meet you. Say something, and I will listen.",
    );
    expect(greeting("{name} for {participant_identity}, {participant_identity}! {other}", "bo", "Maya")).toBe("Maya for bo, bo! {other}");
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
