/**
 * Markdown's text: ATX and setext headings open sections; paragraphs and code blocks are paragraphs; a
 * list is one paragraph of "- item" lines, a nested list on its item's line (what it says belongs with
 * its item), so a short list stays in one passage; a table is one paragraph of "a | b" rows; block
 * quotes are read as their text; HTML is read as HTML (html-text.ts); inline markup is removed
 * (markdown-inline.ts).
 *
 * The blocks are found here, line by line, rather than by marked's block lexer, which is not made for
 * untrusted input of 1 MiB: containers nested thousands deep overflow its stack or exhaust the heap, and
 * a list item of many lines takes minutes (each line rescans the rest of the item). Text needs far less
 * than CommonMark's block rules, and each line here costs about its length.
 */
import { htmlInto } from "./html-text.js";
import { MarkdownInline } from "./markdown-inline.js";
import { oneLine, type SectionBuilder } from "./section-builder.js";

const QUOTE_PREFIX = /^(?: {0,3}>[ \t]?)+/;
const FENCE = /^ {0,3}(`{3,}(?=[^`]*$)|~{3,})/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*))?$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const ITEM = /^[ \t]*([-*+]|\d{1,9}[.)])(?:([ \t]+)(.*))?$/;
/** The items that may interrupt a paragraph: a bullet, or "1." with text. */
const INTERRUPTING_MARKER = /^(?:[-*+]|1[.)])$/;
const TASK = /^\[[ xX]\][ \t]+/;
const DELIMITER_ROW = /^\|?:?-+:?(?:\|:?-+:?)*\|?$/;
const DEFINITION = /^ {0,3}\[([^\]]{1,999})\]:[ \t]*<?([^\s>]+)>?/;
const CODE_INDENT = /^(?: {1,4}|\t)/;
/** HTML blocks: how each starts, and the line that ends it (a blank line when none). */
const HTML_BLOCKS: readonly [RegExp, RegExp | undefined][] = [
  [/^ {0,3}<(?:script|pre|style|textarea)(?:[\s>]|$)/i, /<\/(?:script|pre|style|textarea)>/i],
  [/^ {0,3}<!--/, /-->/],
  [/^ {0,3}<\?/, /\?>/],
  [/^ {0,3}<!\[CDATA\[/, /\]\]>/],
  [/^ {0,3}<![A-Za-z]/, />/],
  [
    /^ {0,3}<\/?(?:address|article|aside|blockquote|body|caption|center|col|colgroup|dd|details|dialog|div|dl|dt|fieldset|figcaption|figure|footer|form|h[1-6]|head|header|hr|html|iframe|legend|li|main|menu|nav|ol|p|section|summary|table|tbody|td|tfoot|th|thead|title|tr|ul)(?:[\s/>]|$)/i,
    undefined,
  ],
];
/** An HTML tag alone on its line starts an HTML block too, but cannot interrupt a paragraph. */
const LONE_TAG = /^ {0,3}<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?>[ \t]*$/;

/** Writes the sections of a Markdown document into a builder. */
export function markdownInto(sections: SectionBuilder, markdown: string): void {
  const reader = new MarkdownReader(sections);
  for (const line of markdown.split("\n")) reader.line(line);
  reader.end();
}

interface List {
  lines: string[];
  /** "-", "*" or "+" for bullets, "." or ")" for numbers: another starts another list. */
  kind: string;
  marker: string;
  item: string[];
  /** Where the item's text starts: a line indented this far is the item's, even after a blank line. */
  contentIndent: number;
  blank: boolean;
}

class MarkdownReader {
  private readonly inline = new MarkdownInline();
  private paragraph: string[] = [];
  private fence: { marker: string; quoted: boolean; lines: string[] } | undefined;
  private html: { end: RegExp | undefined; lines: string[] } | undefined;
  private code: string[] | undefined;
  private table: string[] | undefined;
  private list: List | undefined;

  constructor(private readonly sections: SectionBuilder) {}

  line(raw: string): void {
    const quote = QUOTE_PREFIX.exec(raw)?.[0] ?? "";
    const text = raw.slice(quote.length);
    if (this.fence) {
      const closing = FENCE.exec(text)?.[1] ?? "";
      const { marker } = this.fence;
      if (closing[0] === marker[0] && closing.length >= marker.length && text.trim() === closing) this.endFence();
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
    if (this.code && (blank || indent >= 4)) this.code.push(text.replace(CODE_INDENT, ""));
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
    const fence = FENCE.exec(text)?.[1];
    const atx = indent < 4 ? ATX.exec(text) : null;
    const setext = indent < 4 && this.paragraph.length > 0 ? SETEXT.exec(text) : null;
    const item = indent < 4 && !isBreak(text) ? ITEM.exec(text) : null;
    const html = indent < 4 ? HTML_BLOCKS.find(([begins]) => begins.test(text)) : undefined;
    const header = this.paragraph.at(-1);
    if (text.trim() === "") this.endParagraph();
    else if (fence) {
      this.endParagraph();
      this.fence = { marker: fence, quoted, lines: [] };
    } else if (atx) {
      this.endParagraph();
      this.sections.heading(atx[1]?.length ?? 1, this.inline.text(withoutClosingHashes(atx[2] ?? "")));
    } else if (setext) {
      const title = this.inline.text(this.paragraph.join("\n"));
      this.paragraph = [];
      this.sections.heading(setext[1]?.startsWith("=") ? 1 : 2, title);
    } else if (indent < 4 && isBreak(text)) this.endParagraph();
    else if (item && (this.paragraph.length === 0 || (INTERRUPTING_MARKER.test(item[1] ?? "") && (item[3] ?? "").trim() !== ""))) {
      this.endParagraph();
      this.list = { lines: [], kind: (item[1] ?? "-").at(-1) ?? "-", marker: "", item: [], contentIndent: 0, blank: false };
      this.startItem(item, indent);
    } else if (html || (indent < 4 && this.paragraph.length === 0 && LONE_TAG.test(text))) {
      this.endParagraph();
      this.html = { end: html?.[1], lines: [text] };
      if (html?.[1]?.test(text)) this.endHtml();
    } else if (indent >= 4 && this.paragraph.length === 0) this.code = [text.replace(CODE_INDENT, "")];
    else if (header?.includes("|") && DELIMITER_ROW.test(text.replace(/[ \t]/g, ""))) {
      this.paragraph.pop();
      this.endParagraph();
      this.table = [this.row(header)];
    } else {
      const definition = this.paragraph.length === 0 ? DEFINITION.exec(text) : null;
      if (definition) this.inline.define(definition[1] ?? "", definition[2] ?? "");
      else this.paragraph.push(text.trim());
    }
  }

  /** A line while a list is open: true when it is the list's (an item, or an item's text). */
  private inList(text: string, indent: number, blank: boolean): boolean {
    const list = this.list;
    if (!list) return false;
    if (blank) {
      list.blank = true;
      return true;
    }
    const item = isBreak(text) ? null : ITEM.exec(text);
    if (item && indent < list.contentIndent && (item[1] ?? "").at(-1) === list.kind) {
      this.startItem(item, indent);
      return true;
    }
    // Indented to the item's text, or a lazy continuation: the item's (a nested item without its marker,
    // a fence line dropped). Anything else after a blank line, or that starts a block, ends the list.
    const starts = FENCE.test(text) || ATX.test(text) || isBreak(text) || HTML_BLOCKS.some(([begins]) => begins.test(text));
    const sibling = item !== null && indent < list.contentIndent;
    if (indent >= list.contentIndent || (!list.blank && !starts && !sibling)) {
      if (!FENCE.test(text)) list.item.push(item ? (item[3] ?? "") : text.trim());
      list.blank = false;
      return true;
    }
    this.endList();
    return false;
  }

  private startItem(item: RegExpExecArray, indent: number): void {
    const list = this.list;
    if (!list) return;
    this.endItem();
    const marker = item[1] ?? "-";
    const spaces = item[2]?.length ?? 0;
    list.marker = /\d/.test(marker) ? `${marker.slice(0, -1)}.` : "-";
    list.contentIndent = indent + marker.length + (spaces === 0 || spaces > 4 ? 1 : spaces);
    list.item = [(item[3] ?? "").replace(TASK, "")];
    list.blank = false;
  }

  private endItem(): void {
    const list = this.list;
    if (!list || list.item.length === 0) return;
    const text = oneLine(this.inline.text(list.item.join("\n")));
    if (text !== "") list.lines.push(`${list.marker} ${text}`);
    list.item = [];
  }

  private endList(): void {
    this.endItem();
    if (this.list) this.sections.lines(this.list.lines.join("\n"));
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
    const cells = line
      .trim()
      .replace(/^\|/, "")
      .replace(/(?<!\\)\|$/, "");
    return cells
      .split(/(?<!\\)\|/)
      .map((cell) => oneLine(this.inline.text(cell.replaceAll("\\|", "|"))))
      .join(" | ");
  }
}

/** An ATX heading's text without its closing "#"s (a "#" that ends a word is the word's). */
function withoutClosingHashes(title: string): string {
  const trimmed = title.trimEnd();
  let end = trimmed.length;
  while (end > 0 && trimmed[end - 1] === "#") end -= 1;
  if (end === trimmed.length) return trimmed;
  return end === 0 || trimmed[end - 1] === " " || trimmed[end - 1] === "\t" ? trimmed.slice(0, end) : trimmed;
}

/** Leading white space in columns, a tab to the next multiple of four. */
function indentOf(text: string): number {
  let columns = 0;
  for (const char of text) {
    if (char === " ") columns += 1;
    else if (char === "\t") columns += 4 - (columns % 4);
    else break;
  }
  return columns;
}

/** A thematic break: three or more of one of - * _, and white space. */
function isBreak(text: string): boolean {
  return /^(?:-{3,}|\*{3,}|_{3,})$/.test(text.replace(/[ \t]/g, ""));
}
