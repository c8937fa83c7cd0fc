/**
 * A Markdown list read as one paragraph of "- item" lines, a nested list on its item's line (what it says
 * belongs with its item), so a short list stays in one passage. Which lines an open list takes is the
 * subtlest of the block rules a reader needs (an item's text goes on past a blank line when indented, or
 * lazily when not; a nested item is its item's text; another kind of marker starts another list), so the
 * list is kept apart from the reader that finds where the other blocks start and end (markdown-text.ts).
 * Each line is looked at once, never the item's lines before it: a list item of many lines takes time in
 * proportion to its length.
 */
import { fenceOpening, type ItemLine, itemLine, startsBlock } from "./markdown-block-syntax.js";
import type { MarkdownInline } from "./markdown-inline.js";
import { oneLine } from "./section-builder.js";

const TASK = /^\[[ xX]\][ \t]+/;

export class MarkdownList {
  private readonly lines: string[] = [];
  /** "-", "*" or "+" for bullets, "." or ")" for numbers: another starts another list. */
  private readonly kind: string;
  private marker = "";
  private item: string[] = [];
  /** Where the item's text starts: a line indented this far is the item's, even after a blank line. */
  private contentIndent = 0;
  private blank = false;

  /** A list opened by its first item's line, indented so far; its items' inline markup read by inline. */
  constructor(
    private readonly inline: MarkdownInline,
    first: ItemLine,
    indent: number,
  ) {
    this.kind = first.marker.at(-1) ?? "-";
    this.startItem(first, indent);
  }

  /**
   * A line while the list is open: true when it is the list's (an item, or an item's text). When false,
   * the list has ended before the line, and the line is another block's.
   */
  takes(text: string, indent: number, blank: boolean): boolean {
    if (blank) {
      this.blank = true;
      return true;
    }
    const item = itemLine(text);
    if (item && indent < this.contentIndent && item.marker.at(-1) === this.kind) {
      this.startItem(item, indent);
      return true;
    }
    // Indented to the item's text, or a lazy continuation: the item's (a nested item without its marker,
    // a fence line dropped). Anything else after a blank line, or that starts a block, ends the list.
    const starts = startsBlock(text);
    const sibling = item !== undefined && indent < this.contentIndent;
    if (indent >= this.contentIndent || (!this.blank && !starts && !sibling)) {
      if (fenceOpening(text) === undefined) this.item.push(item ? item.text : text.trim());
      this.blank = false;
      return true;
    }
    return false;
  }

  /** The list's text once it has ended: one line for each item that has text. */
  text(): string {
    this.endItem();
    return this.lines.join("\n");
  }

  private startItem(item: ItemLine, indent: number): void {
    this.endItem();
    this.marker = /\d/.test(item.marker) ? `${item.marker.slice(0, -1)}.` : "-";
    this.contentIndent = indent + item.marker.length + (item.spaces === 0 || item.spaces > 4 ? 1 : item.spaces);
    this.item = [item.text.replace(TASK, "")];
    this.blank = false;
  }

  private endItem(): void {
    if (this.item.length === 0) return;
    const text = oneLine(this.inline.text(this.item.join("\n")));
    if (text !== "") this.lines.push(`${this.marker} ${text}`);
    this.item = [];
  }
}
