import { describe, expect, it } from "vitest";
import { NOTHING_REMEMBERED, REMEMBERED_HEADING, USE_NATURALLY, withMemory } from "./remembered.js";

describe("withMemory", () => {
  it("leaves the instructions alone when the digital human has no memory", () => {
    expect(withMemory("Be brief.", undefined)).toBe("Be brief.");
  });

  it("says it remembers nothing yet, so it never claims to", () => {
    expect(withMemory("Be brief.", [])).toBe(`Be brief.\n\n${NOTHING_REMEMBERED}`);
  });

  it("gives the facts as data after the instructions, one a line, with how to use them", () => {
    expect(withMemory("Be brief.", ["Name is Ada", "Prefers tea"])).toBe(
      ["Be brief.", "", REMEMBERED_HEADING, "- Name is Ada", "- Prefers tea", USE_NATURALLY].join("\n"),
    );
  });
});
