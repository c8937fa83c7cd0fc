import { describe, expect, it } from "vitest";
import { chunksOf } from "./chunker.js";

describe("passages cut at sentences", () => {
  it("never cut after an abbreviation, and repeat the whole sentence before them", () => {
    const filler = (i: number) => `Sentence ${i} is about the hotel and its many rooms.`;
    const last = "Ask Mr. Smith at St. Mary Street, No. 5, approx. 20 minutes away.";
    const paragraph = [filler(0), filler(1), filler(2), filler(3), last, filler(4), filler(5), filler(6)].join(" ");
    const chunks = chunksOf([{ headings: [], paragraphs: [paragraph] }], { targetChars: 200, maxChars: 300 });
    const texts = chunks.map((chunk) => chunk.text);
    expect(texts[0]?.endsWith(last)).toBe(true);
    expect(texts[1]?.startsWith(`${last} ${filler(4)}`)).toBe(true);
    for (const text of texts) expect(text).not.toMatch(/(?:Mr|St|No|approx)\.$|^(?:Smith|Mary|5|20)\b/);
  });

  it("end a sentence at a line's end, without a period", () => {
    const list = `${"Rooms with a view of the lake\n".repeat(3)}${"Breakfast is served from 7:00 a.m. in the Garden Room. ".repeat(3)}`;
    const chunks = chunksOf([{ headings: [], paragraphs: [list.trim()] }], { targetChars: 100, maxChars: 120 });
    expect(chunks.map((chunk) => chunk.text)).toContain(
      "Rooms with a view of the lake Rooms with a view of the lake Rooms with a view of the lake",
    );
    for (const chunk of chunks) expect(chunk.text).not.toMatch(/a\.m\.$/);
  });
});
