import { describe, expect, it } from "vitest";
import { chunksOf } from "./chunker.js";
import { sectionsOf } from "./document-text.js";

const MiB = 1024 * 1024;

describe("a plain text document's sections", () => {
  it("paragraphs are what blank lines separate, their lines kept, their white space tidied", () => {
    expect(sectionsOf("text", "Opening hours:\n  Monday  to Friday\t9-17\n \nCLOSED ON SUNDAYS\n\n\n\nBook ahead.")).toEqual([
      { headings: [], paragraphs: ["Opening hours:\nMonday to Friday 9-17", "CLOSED ON SUNDAYS", "Book ahead."] },
    ]);
  });

  it("Windows line ends, a byte order mark and control characters are white space", () => {
    expect(sectionsOf("text", "\uFEFFOne\r\ntwo\u0007three\r\n\r\nfour\u0000\u001Bfive\u0085")).toEqual([
      { headings: [], paragraphs: ["One\ntwo three", "four five"] },
    ]);
  });

  it("white space alone leaves no sections", () => {
    expect(sectionsOf("text", " \n\t\n\n  ")).toEqual([]);
  });
});

describe("a document of 1 MiB", () => {
  const prose = (i: number) => `Sentence ${i} tells of the hotel's rooms, its garden and the breakfast it serves each morning.`;
  const paragraphs = Array.from({ length: 11_000 }, (_, i) => `${prose(i)} ${prose(i + 1)}`);

  it.each([
    ["text", paragraphs.join("\n\n")],
    ["markdown", paragraphs.map((p, i) => (i % 10 === 0 ? `## Part ${i}\n\n- *${p}*` : p)).join("\n\n")],
    ["html", paragraphs.map((p, i) => (i % 10 === 0 ? `<h2>Part ${i}</h2><p><b>${p}</b></p>` : `<p>${p}</p>`)).join("\n")],
  ] as const)("in %s is read whole, into passages bounded by its size", (format, content) => {
    const document = content.slice(0, MiB);
    const sections = sectionsOf(format, document);
    const text = sections.flatMap((section) => section.paragraphs).join("\n");
    expect(text).toContain(prose(1));
    expect(text).toContain(prose(5_000));
    expect(chunksOf(sections).length).toBeLessThan(MiB / 400);
  });
});
