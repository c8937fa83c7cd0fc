import { describe, expect, it } from "vitest";
import {
  atxHeading,
  closesFence,
  fenceOpening,
  htmlBlockStart,
  indentOf,
  interruptsParagraph,
  isBreak,
  isDelimiterRow,
  isLoneTag,
  itemLine,
  quotePrefix,
  referenceDefinition,
  setextDepth,
  startsBlock,
  tableCells,
  withoutCodeIndent,
} from "./markdown-block-syntax.js";

describe("what a line of Markdown is", () => {
  it("a quote's markers are its prefix, nested ones too", () => {
    expect(quotePrefix("> > nested")).toBe("> > ");
    expect(quotePrefix(">text")).toBe(">");
    expect(quotePrefix("    > code")).toBe("");
  });

  it("indentation is counted in columns, a tab to the next multiple of four", () => {
    expect(indentOf(" x")).toBe(1);
    expect(indentOf("\tx")).toBe(4);
    expect(indentOf("  \t x")).toBe(5);
    expect(indentOf("")).toBe(0);
  });

  it("a thematic break is three or more of one character, spaces between", () => {
    expect(isBreak("***")).toBe(true);
    expect(isBreak(" - - -")).toBe(true);
    expect(isBreak("--")).toBe(false);
    expect(isBreak("-*-")).toBe(false);
  });

  it("a fence opens with three backticks or tildes, and closes with as many or more of the same, alone", () => {
    expect(fenceOpening("```ts")).toBe("```");
    expect(fenceOpening("~~~~")).toBe("~~~~");
    expect(fenceOpening("```a`b")).toBeUndefined();
    expect(fenceOpening("    ```")).toBeUndefined();
    expect(closesFence("````", "```")).toBe(true);
    expect(closesFence("``` ", "```")).toBe(true);
    expect(closesFence("``", "```")).toBe(false);
    expect(closesFence("~~~", "```")).toBe(false);
    expect(closesFence("``` x", "```")).toBe(false);
  });

  it("an ATX heading's closing hashes are dropped, a word's own are not (its white space is tidied later)", () => {
    expect(atxHeading("## Breakfast ##")).toEqual({ depth: 2, title: "Breakfast " });
    expect(atxHeading("# C#")).toEqual({ depth: 1, title: "C#" });
    expect(atxHeading("###")).toEqual({ depth: 3, title: "" });
    expect(atxHeading("#5 is not a heading")).toBeUndefined();
    expect(atxHeading("####### seven")).toBeUndefined();
  });

  it("a setext underline of = is depth 1, of - depth 2", () => {
    expect(setextDepth("=====")).toBe(1);
    expect(setextDepth("  --- ")).toBe(2);
    expect(setextDepth("= =")).toBeUndefined();
  });

  it("a list item's line is its marker, the white space after it and its text; a break is none", () => {
    expect(itemLine("- Single")).toEqual({ marker: "-", spaces: 1, text: "Single" });
    expect(itemLine("  12)\t\tTwelve")).toEqual({ marker: "12)", spaces: 2, text: "Twelve" });
    expect(itemLine("*")).toEqual({ marker: "*", spaces: 0, text: "" });
    expect(itemLine("* * *")).toBeUndefined();
    expect(itemLine("-text")).toBeUndefined();
  });

  it("only a bullet or 1. with text interrupts a paragraph", () => {
    const interrupts = (line: string) => {
      const item = itemLine(line);
      return item !== undefined && interruptsParagraph(item);
    };
    expect(interrupts("- a")).toBe(true);
    expect(interrupts("1) a")).toBe(true);
    expect(interrupts("2. a")).toBe(false);
    expect(interrupts("- ")).toBe(false);
  });

  it("an HTML block says the line that ends it; a lone tag is a block only where a paragraph may start", () => {
    expect(htmlBlockStart("<div class=x>")).toEqual({ end: undefined });
    expect(htmlBlockStart("<script>")?.end?.test("</script>")).toBe(true);
    expect(htmlBlockStart("<!-- note")?.end?.test("-->")).toBe(true);
    expect(htmlBlockStart("<span>")).toBeUndefined();
    expect(isLoneTag("<span>")).toBe(true);
    expect(isLoneTag("<span>text</span>")).toBe(false);
  });

  it("a fence, a heading, a break or HTML starts a block; text does not", () => {
    expect(startsBlock("```")).toBe(true);
    expect(startsBlock("# Title")).toBe(true);
    expect(startsBlock("___")).toBe(true);
    expect(startsBlock("<div>")).toBe(true);
    expect(startsBlock("text")).toBe(false);
  });

  it("a table's delimiter row is dashes between bars, colons at their ends", () => {
    expect(isDelimiterRow("| :--- | ---: |")).toBe(true);
    expect(isDelimiterRow("---|---")).toBe(true);
    expect(isDelimiterRow("| a |")).toBe(false);
  });

  it("a table row's cells are split at bars, not at escaped ones", () => {
    expect(tableCells("| a | b \\| c |")).toEqual([" a ", " b | c "]);
    expect(tableCells("a|b")).toEqual(["a", "b"]);
  });

  it("a reference definition is its label and its address", () => {
    expect(referenceDefinition("[Map]: <https://x.test/map>")).toEqual({ label: "Map", href: "https://x.test/map" });
    expect(referenceDefinition("[Map] https://x.test")).toBeUndefined();
  });

  it("an indented code line loses the four columns that made it code", () => {
    expect(withoutCodeIndent("      x")).toBe("  x");
    expect(withoutCodeIndent("\tx")).toBe("x");
  });
});
