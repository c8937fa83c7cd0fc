import { describe, expect, it } from "vitest";
import { chunksOf } from "./chunker.js";
import { processDocument } from "./document-processing.js";
import { sectionsOf } from "./document-text.js";

const texts = (format: "text" | "markdown" | "html", content: string) => {
  const outcome = processDocument(format, content);
  if (outcome.kind !== "ready") throw new Error(outcome.error);
  return outcome.chunks.map((chunk) => chunk.text);
};

describe("a Markdown document", () => {
  it("is split at its headings, each passage led by its heading path, markup gone", () => {
    const chunks = texts(
      "markdown",
      "# Hotel\n\n## Breakfast\nBreakfast is **served** from 7:00 in the [Garden Room](https://x).\n\n## Spa\n![A sauna](s.png) opens at 9:00.",
    );
    expect(chunks).toEqual(["Hotel > Breakfast\nBreakfast is served from 7:00 in the Garden Room.", "Hotel > Spa\nA sauna opens at 9:00."]);
  });

  it("keeps a list as one passage, an item a line (nested items with theirs), and a table's rows", () => {
    const [chunk] = texts("markdown", "# Rooms\n- single\n- double\n  - with a view\n\n| room | price |\n|-|-|\n| single | 90 |\n");
    expect(chunk).toBe("Rooms\n- single\n- double with a view\nroom | price\nsingle | 90");
  });
});

describe("an HTML document", () => {
  it("shows its visible text only: no script, style or head; entities decoded; headings start sections", () => {
    const chunks = texts(
      "html",
      "<html><head><title>T</title><style>p{}</style></head><body><h1>Hours</h1><p>Open &amp; staffed</p><script>steal()</script><h2>Spa</h2><div>Sauna <b>hot</b></div></body></html>",
    );
    expect(chunks).toEqual(["Hours\nOpen & staffed", "Hours > Spa\nSauna hot"]);
  });

  it("broken markup is read as far as it goes, never thrown on", () => {
    // A heading with nothing under it leads no passage.
    expect(texts("html", "<p>Unclosed <b>bold <div>and <h2>half")).toEqual(["Unclosed bold\nand"]);
    expect(processDocument("html", "<<<>>><p </p>&&&;").kind).toBe("ready");
  });

  it("with no text once its markup is removed is failed with that reason", () => {
    expect(processDocument("html", "<script>x()</script><p>  </p>")).toEqual({
      kind: "failed",
      error: "The document has no text once its markup is removed.",
    });
    expect(processDocument("text", " \n\n ")).toEqual({ kind: "failed", error: "The document has no text." });
  });
});

describe("passages", () => {
  it("merge a section's short paragraphs up to the target, and never cross a heading", () => {
    const chunks = chunksOf([
      { headings: ["A"], paragraphs: ["One.", "Two."] },
      { headings: ["B"], paragraphs: ["Three."] },
    ]);
    expect(chunks).toEqual([
      { index: 0, text: "A\nOne.\nTwo." },
      { index: 1, text: "B\nThree." },
    ]);
  });

  it("cut a long paragraph at sentences, and a continuing passage repeats the short sentence before it", () => {
    const sentence = (i: number) => `Sentence ${i} is about the hotel and its many rooms.`;
    const paragraph = Array.from({ length: 40 }, (_, i) => sentence(i)).join(" ");
    const chunks = chunksOf([{ headings: ["Rooms"], paragraphs: [paragraph] }], { targetChars: 300, maxChars: 400 });
    expect(chunks.length).toBeGreaterThan(4);
    for (const chunk of chunks) {
      expect(chunk.text.startsWith("Rooms\n")).toBe(true);
      expect(chunk.text.length).toBeLessThanOrEqual("Rooms\n".length + 400 + 1 + 200);
    }
    expect(chunks[0]?.text.endsWith(sentence(7))).toBe(true);
    expect(chunks[1]?.text.startsWith(`Rooms\n${sentence(7)} ${sentence(8)}`)).toBe(true);
  });

  it("cut a word longer than a passage where they must, and lose no character of it", () => {
    const word = "x".repeat(2500);
    const chunks = chunksOf([{ headings: [], paragraphs: [word] }]);
    expect(chunks.map((c) => c.text.length)).toEqual([1000, 1000, 500]);
    expect(chunks.map((c) => c.text).join("")).toBe(word);
  });

  it("of a 1 MiB document are bounded by its size, and a document of too many is failed", () => {
    const big = `${"A sentence about rooms. ".repeat(30)}\n\n`.repeat(2000).slice(0, 1024 * 1024);
    const outcome = processDocument("text", big);
    expect(outcome.kind).toBe("ready");
    if (outcome.kind === "ready") expect(outcome.chunks.length).toBeLessThan(2500);
    const tiny = Array.from({ length: 6000 }, (_, i) => `# H${i}\nx`).join("\n\n");
    expect(processDocument("markdown", tiny)).toMatchObject({ kind: "failed", error: expect.stringMatching(/more than 5000 passages/) });
  });
});

describe("plain text", () => {
  it("is paragraphs between blank lines, its white space tidied, its line breaks kept", () => {
    expect(sectionsOf("text", "First  line\nsecond\t line\n\n\n  Next.  ")).toEqual([
      { headings: [], paragraphs: ["First line\nsecond line", "Next."] },
    ]);
  });
});
