import { describe, expect, it } from "vitest";
import { answerFrom } from "./knowledge-answer.js";
import type { Passage } from "./turn-knowledge.js";

const passage = (text: string): Passage => ({ document_id: "doc_4b1e9c2d7a3f5e60b8c1d2e3", document_name: "Facts", text, score: 0.5 });
const HOTEL = passage(
  "Breakfast\nBreakfast is served from 7:00 to 10:30 in the Garden Room. Coffee costs 4.50 euros. The garage has 40 places at 25 euros a night.",
);

describe("the answer of a digital human without an LLM", () => {
  it.each([
    ["What time is breakfast?", "Breakfast is served from 7:00 to 10:30 in the Garden Room."],
    ["when are breakfasts served", "Breakfast is served from 7:00 to 10:30 in the Garden Room."],
    ["How much is coffee?", "Coffee costs 4.50 euros."],
    ["How many places does the garage have?", "The garage has 40 places at 25 euros a night."],
  ])("%s: the answering sentence, verbatim (its stems matched)", (question, answer) => {
    expect(answerFrom([HOTEL], question)).toBe(answer);
  });

  it("tells hyphenated words apart: check-out is not check-in", () => {
    const desk = passage("Check-in and check-out\nCheck-in starts at three. Check-out is until eleven.");
    expect(answerFrom([desk], "When is check-out?")).toBe("Check-out is until eleven.");
    expect(answerFrom([desk], "When is check-in?")).toBe("Check-in starts at three.");
  });

  it("reads an abbreviation as part of its sentence, not its end", () => {
    const desk = passage("Reception\nThe concierge is Mr. Smith. He is at the desk from 7:00.");
    expect(answerFrom([desk], "Who is the concierge?")).toBe("The concierge is Mr. Smith.");
  });

  it("takes the next sentence too when it answers more of the question", () => {
    expect(answerFrom([HOTEL], "breakfast and coffee")).toBe(
      "Breakfast is served from 7:00 to 10:30 in the Garden Room. Coffee costs 4.50 euros.",
    );
  });

  it.each([
    ["a question of other things", "Do you like movies?"],
    ["only a half-match of many words", "Is the spa pool heated in winter for breakfast guests?"],
    ["only stop words", "What is it?"],
    ["nothing said", ""],
  ])("says nothing for %s", (_name, question) => {
    expect(answerFrom([HOTEL], question)).toBeUndefined();
  });

  it("says nothing without a passage, and never reads the heading line as an answer", () => {
    expect(answerFrom([], "breakfast")).toBeUndefined();
    expect(answerFrom([passage("Parking\nThe garage is open all night.")], "parking")).toBeUndefined();
  });
});
