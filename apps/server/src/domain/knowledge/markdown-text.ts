/**
 * Markdown's text: ATX and setext headings open sections; paragraphs and code blocks are paragraphs; a
 * list is one paragraph of "- item" lines (markdown-list.ts); a table is one paragraph of "a | b" rows;
 * block quotes are read as their text; HTML is read as HTML (html-text.ts); inline markup is removed
 * (markdown-inline.ts). This module is the reader that holds the open block and writes each block into
 * the sections as it ends; what a line is in Markdown's syntax is asked of markdown-block-syntax.ts.
 *
 * The blocks are found here, line by line, rather than by marked's block lexer, which is not made for
 * untrusted input of 1 MiB: containers nested thousands deep overflow its stack or exhaust the heap, and
 * a list item of many lines takes minutes (each line rescans the rest of the item). Text needs far less
 * than CommonMark's block rules, and each line here costs about its length.
 */
import { htmlInto } from "./html-text.js";
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
  tableCells,
  withoutCodeIndent,
} from "./markdown-block-syntax.js";
import { MarkdownInline } from "./markdown-inline.js";
import { MarkdownList } from "./markdown-list.js";
import { oneLine, type SectionBuilder } from "./section-builder.js";

/** Writes the sections of a Markdown document into a builder. */
export function markdownInto(sections: SectionBuilder, markdown: string): void {
  const reader = new MarkdownReader(sections);
  for (const line of markdown.split("\n")) reader.line(line);
  reader.end();
}

class MarkdownReader {
  private readonly inline = new MarkdownInline();
  private paragraph: string[] = [];
  private fence: { marker: string; quoted: boolean; lines: string[] } | undefined;
  private html: { end: RegExp | undefined; lines: string[] } | undefined;
  private code: string[] | undefined;
  private table: string[] | undefined;
  private list: MarkdownList | undefined;

  constructor(private readonly sections: SectionBuilder) {}

  line(raw: string): void {
    const quote = quotePrefix(raw);
    const text = raw.slice(quote.length);
    if (this.fence) {
      if (closesFence(text, this.fence.marker)) this.endFence();
      else this.fence.lines.push(this.fence.quoted ? text : raw);
      return;
    }
    const blank = text.trim() === "";
    if (this.html) {
      if (this.html.end === undefined && blank) this.endHtml();
      else {
        this.html.lines.push(text);
        if (this.html.end?.test(text)) this.endHtml();
      }
      return;
    }
    const indent = indentOf(text);
    if (this.code && (blank || indent >= 4)) this.code.push(withoutCodeIndent(text));
    else if (this.table && !blank && text.includes("|")) this.table.push(this.row(text));
    else if (!this.inList(text, indent, blank)) {
      this.endCode();
      this.endTable();
      this.start(text, indent, quote !== "");
    }
  }

  end(): void {
    this.endFence();
    this.endHtml();
    this.endCode();
    this.endTable();
    this.endList();
    this.endParagraph();
  }

  /** A line that no open block (but a paragraph) takes. */
  private start(text: string, indent: number, quoted: boolean): void {
    const fence = fenceOpening(text);
    const atx = indent < 4 ? atxHeading(text) : undefined;
    const setext = indent < 4 && this.paragraph.length > 0 ? setextDepth(text) : undefined;
    const item = indent < 4 ? itemLine(text) : undefined;
    const html = indent < 4 ? htmlBlockStart(text) : undefined;
    const header = this.paragraph.at(-1);
    if (text.trim() === "") this.endParagraph();
    else if (fence) {
      this.endParagraph();
      this.fence = { marker: fence, quoted, lines: [] };
    } else if (atx) {
      this.endParagraph();
      this.sections.heading(atx.depth, this.inline.text(atx.title));
    } else if (setext) {
      const title = this.inline.text(this.paragraph.join("\n"));
      this.paragraph = [];
      this.sections.heading(setext, title);
    } else if (indent < 4 && isBreak(text)) this.endParagraph();
    else if (item && (this.paragraph.length === 0 || interruptsParagraph(item))) {
      this.endParagraph();
      this.list = new MarkdownList(this.inline, item, indent);
    } else if (html || (indent < 4 && this.paragraph.length === 0 && isLoneTag(text))) {
      this.endParagraph();
      this.html = { end: html?.end, lines: [text] };
      if (html?.end?.test(text)) this.endHtml();
    } else if (indent >= 4 && this.paragraph.length === 0) this.code = [withoutCodeIndent(text)];
    else if (header?.includes("|") && isDelimiterRow(text)) {
      this.paragraph.pop();
      this.endParagraph();
      this.table = [this.row(header)];
    } else {
      const definition = this.paragraph.length === 0 ? referenceDefinition(text) : undefined;
      if (definition) this.inline.define(definition.label, definition.href);
      else this.paragraph.push(text.trim());
    }
  }

  /** A line while a list is open: true when it is the list's; otherwise the list is written and closed. */
  private inList(text: string, indent: number, blank: boolean): boolean {
    if (!this.list) return false;
    if (this.list.takes(text, indent, blank)) return true;
    this.endList();
    return false;
  }

  private endList(): void {
    if (this.list) this.sections.lines(this.list.text());
    this.list = undefined;
  }

  private endParagraph(): void {
    if (this.paragraph.length > 0) this.sections.paragraph(this.inline.text(this.paragraph.join("\n")));
    this.paragraph = [];
  }

  private endFence(): void {
    if (this.fence) this.sections.lines(this.fence.lines.join("\n"));
    this.fence = undefined;
  }

  private endHtml(): void {
    if (this.html) htmlInto(this.sections, this.html.lines.join("\n"));
    this.html = undefined;
  }

  private endCode(): void {
    if (this.code) this.sections.lines(this.code.join("\n"));
    this.code = undefined;
  }

  private endTable(): void {
    if (this.table) this.sections.lines(this.table.filter((row) => row.replaceAll("|", "").trim() !== "").join("\n"));
    this.table = undefined;
  }

  /** A table row's cells, without their markup, between " | ". */
  private row(line: string): string {
    return tableCells(line)
      .map((cell) => oneLine(this.inline.text(cell)))
      .join(" | ");
  }
}
