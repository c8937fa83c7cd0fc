import { describe, expect, it } from "vitest";
import { sectionsOf } from "./document-text.js";

const markdown = (content: string) => sectionsOf("markdown", content);
const MiB = 1024 * 1024;

describe("a Markdown document's sections", () => {
  it("a Markdown heading starts a section under the headings above it", () => {
    expect(markdown("# Hotel\nWelcome.\n## Breakfast ##\nFrom 7.\n### Vegan\nOat milk.\n## Spa\nSauna.")).toEqual([
      { headings: ["Hotel"], paragraphs: ["Welcome."] },
      { headings: ["Hotel", "Breakfast"], paragraphs: ["From 7."] },
      { headings: ["Hotel", "Breakfast", "Vegan"], paragraphs: ["Oat milk."] },
      { headings: ["Hotel", "Spa"], paragraphs: ["Sauna."] },
    ]);
  });

  it("setext headings are headings, and a thematic break is not", () => {
    expect(markdown("Hotel\n=====\nWelcome.\n\nRooms\n-----\nTwenty.\n\n***\n\nMore.")).toEqual([
      { headings: ["Hotel"], paragraphs: ["Welcome."] },
      { headings: ["Hotel", "Rooms"], paragraphs: ["Twenty.", "More."] },
    ]);
  });

  it("text before the first heading has no heading path", () => {
    expect(markdown("Intro.\n\n# Later\nText.")[0]).toEqual({ headings: [], paragraphs: ["Intro."] });
  });

  it("inline markup is removed: emphasis, code, a link is its text, an image its alt text, HTML tags", () => {
    const [section] = markdown(
      'Breakfast is **served** from _7:00_ in the [Garden Room](https://x.test "title"), see ![the map](map.png), `room 12`, <b>daily</b> ~~not~~ &amp; \\*always\\*.',
    );
    expect(section?.paragraphs).toEqual(["Breakfast is served from 7:00 in the Garden Room, see the map, room 12, daily not & *always*."]);
  });

  it("a reference link is its text, and its definition is not text", () => {
    expect(markdown("[map]: https://x.test/map\n\nSee the [hotel map][map].")).toEqual([
      { headings: [], paragraphs: ["See the hotel map."] },
    ]);
  });

  it("a paragraph's lines are one line of prose", () => {
    expect(markdown("Breakfast is served\nfrom 7:00\n  to 10:00.")[0]?.paragraphs).toEqual(["Breakfast is served from 7:00 to 10:00."]);
  });

  it("a list is one paragraph of items, a nested list on its item's line, a task without its box", () => {
    const [section] = markdown("# Rooms\n- Single\n- Double\n  - with a view\n    - of the lake\n- [x] Suite\n\n1. First\n2. Second");
    expect(section?.paragraphs).toEqual(["- Single\n- Double with a view of the lake\n- Suite", "1. First\n2. Second"]);
  });

  it("a loose list keeps an item's later paragraphs with the item, and ends at text that is not indented", () => {
    const [section] = markdown("- Breakfast\n\n  served in the garden\n- Lunch\n\nNot in the list.");
    expect(section?.paragraphs).toEqual(["- Breakfast served in the garden\n- Lunch", "Not in the list."]);
  });

  it("a table is one paragraph of rows, its cells between bars", () => {
    const [section] = markdown("Prices:\n\n| Room | Price |\n|:-----|------:|\n| *Single* | 90 |\n| Double | 120 \\| 140 |\n");
    expect(section?.paragraphs).toEqual(["Prices:", "Room | Price\nSingle | 90\nDouble | 120 | 140"]);
  });

  it("code blocks are kept as text, their lines kept", () => {
    const [section] = markdown("```sh\ncurl https://x.test\n# not a heading\n```\n\n    indented();\n    code();\n");
    expect(section).toEqual({ headings: [], paragraphs: ["curl https://x.test\n# not a heading", "indented();\ncode();"] });
  });

  it("a block quote is read as its text", () => {
    expect(markdown("> Guests say:\n> *lovely* stay\n>\n> > nested")[0]?.paragraphs).toEqual(["Guests say: lovely stay", "nested"]);
  });

  it("HTML in Markdown is read as HTML: its text kept, its scripts, styles and comments not", () => {
    const sections = markdown(
      '<div class="x">\n<h2>Spa</h2>\n<p>Sauna &amp; pool</p>\n</div>\n\n<script>\nsteal();\n\nmore();\n</script>\n\n<!-- hidden\n\nstill hidden -->\nVisible <span>text</span> <style>p{}</style>.',
    );
    expect(sections).toEqual([{ headings: ["Spa"], paragraphs: ["Sauna & pool", "Visible text ."] }]);
  });

  it("an unclosed fence runs to the end, never thrown on", () => {
    expect(markdown("Text.\n\n```\ncode\n\nmore")).toEqual([{ headings: [], paragraphs: ["Text.", "code\nmore"] }]);
  });

  it("a heading longer than a heading can be is a paragraph", () => {
    const long = `# ${"word ".repeat(60)}`;
    expect(markdown(long)).toEqual([{ headings: [], paragraphs: ["word ".repeat(60).trim()] }]);
  });

  it("markup alone leaves no sections", () => {
    expect(markdown("# \n\n***\n\n<!-- x -->\n\n[a]: https://x.test\n")).toEqual([]);
  });
});

describe("a Markdown document of 1 MiB made to be slow is read in about linear time", () => {
  it.each([
    ["block quotes nested a million deep", ">".repeat(MiB)],
    ["lists nested by their indentation", Array.from({ length: 10_000 }, (_, i) => `${" ".repeat(2 * (i % 100))}- x`).join("\n")],
    ["list markers nested on one line", `${"- ".repeat(MiB / 2)}x`],
    ["one list item of many lines", `- a\n${"  b\n".repeat(MiB / 4)}`],
    ["one list item of lazy lines", `- a\n${"b\n".repeat(MiB / 2)}`],
    ["unmatched emphasis", "*a".repeat(MiB / 2)],
    ["paragraphs of unmatched emphasis", `${"_a".repeat(499)}\n\n`.repeat(MiB / 1000)],
    ["paragraphs of exclamation marks", `${"!".repeat(999)}\n\n`.repeat(MiB / 1000)],
    ["unclosed links", "[a](".repeat(MiB / 4)],
    ["a heading of spaces", `# ${" ".repeat(MiB)}x #`],
    ["a table of many rows", `| a | b |\n|---|---|\n${"| *1* | 2 |\n".repeat(MiB / 12)}`],
  ])("%s", (_, content) => {
    expect(() => markdown(content)).not.toThrow();
  });
});
