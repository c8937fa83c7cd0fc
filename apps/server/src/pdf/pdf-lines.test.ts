import { describe, expect, it } from "vitest";
import { linesToText, type PositionedText } from "./pdf-lines.js";

const at = (text: string, y: number, size = 12, endsLine = true): PositionedText => ({ text, y, size, endsLine });

describe("a page's text from PDF.js's pieces", () => {
  it("keeps lines set a line apart in one paragraph, and starts another where the gap is wider", () => {
    const text = linesToText([at("Breakfast is served", 700), at("from 7:00 to 10:30.", 686), at("Parking costs 25 euros.", 640)]);
    expect(text).toBe("Breakfast is served\nfrom 7:00 to 10:30.\n\nParking costs 25 euros.");
  });

  it("joins the pieces of one line, and collapses their white space", () => {
    expect(linesToText([at("Open ", 700, 12, false), at("  at", 700, 12, false), at(" 9:00. ", 700)])).toBe("Open at 9:00.");
  });

  it("sets a heading (a larger size) apart from the text under it, and a new column (back up the page) too", () => {
    const text = linesToText([at("Spa", 760, 20), at("Opens at 9:00.", 738), at("Second column.", 760)]);
    expect(text).toBe("Spa\n\nOpens at 9:00.\n\nSecond column.");
  });

  it("is empty for a page with no text, or only white space", () => {
    expect(linesToText([])).toBe("");
    expect(linesToText([at("   ", 700), at("", 680)])).toBe("");
  });
});
