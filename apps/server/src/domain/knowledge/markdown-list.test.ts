import { describe, expect, it } from "vitest";
import { indentOf, itemLine } from "./markdown-block-syntax.js";
import { MarkdownInline } from "./markdown-inline.js";
import { MarkdownList } from "./markdown-list.js";

/** The list the lines open, its text, and the line it ended before (undefined when it took them all). */
function read(lines: string[]): { text: string; endedAt: string | undefined } {
  const [first = "", ...rest] = lines;
  const item = itemLine(first);
  if (!item) throw new Error(`not an item: ${first}`);
  const list = new MarkdownList(new MarkdownInline(), item, indentOf(first));
  const endedAt = rest.find((line) => !list.takes(line, indentOf(line), line.trim() === ""));
  return { text: list.text(), endedAt };
}

describe("a Markdown list", () => {
  it("is one line for each item, numbers kept as 'n.', a task without its box, markup removed", () => {
    expect(read(["3) [ ] *Check* in", "4) Check out"])).toEqual({ text: "3. Check in\n4. Check out", endedAt: undefined });
  });

  it("puts a nested list, and lazy lines, on its item's line", () => {
    expect(read(["- Double", "  - with a view", "of the lake", "- Suite"]).text).toBe("- Double with a view of the lake\n- Suite");
  });

  it("keeps an indented line after a blank line with its item, but not text that is not indented", () => {
    expect(read(["- Breakfast", "", "  in the garden", "", "Not the list's."])).toEqual({
      text: "- Breakfast in the garden",
      endedAt: "Not the list's.",
    });
  });

  it("ends at another kind of marker, and at a line that starts a block", () => {
    expect(read(["- a", "1. b"]).endedAt).toBe("1. b");
    expect(read(["- a", "# Heading"]).endedAt).toBe("# Heading");
    expect(read(["- a", "***"]).endedAt).toBe("***");
  });

  it("drops a fence's lines inside an item, keeping the code as the item's text", () => {
    expect(read(["- run", "  ```", "  make", "  ```"]).text).toBe("- run make");
  });

  it("writes no line for an item without text", () => {
    expect(read(["-", "- b"]).text).toBe("- b");
  });
});
