/**
 * HTML's text: headings (h1 to h6) open sections, block elements end paragraphs, a list is one paragraph
 * of "- item" lines (a nested list on its item's line) and a table one of "a | b" rows, as in Markdown
 * (markdown-text.ts); what a reader never sees (script, style, noscript, template, the head) is dropped,
 * character references decoded.
 *
 * It reads htmlparser2's Tokenizer rather than its Parser: the Parser keeps the open elements in an array
 * it shifts and searches on every tag, so 200 000 unclosed <div>s (1 MiB) take seconds. Nothing here
 * needs the tree, only where blocks start and end, so every tag costs the same whatever the nesting, and
 * markup no browser would accept is read as well as it can be, never refused.
 */
import { Tokenizer } from "htmlparser2";
import { oneLine, type SectionBuilder } from "./section-builder.js";

/** Elements whose content is not text a reader sees. */
const HIDDEN = new Set(["script", "style", "noscript", "template", "title", "textarea"]);
/** What may be in the head; any other element (or text) starts the body, as browsers do. */
const HEAD_CONTENT = new Set(["meta", "link", "base", "title", "style", "script", "noscript", "template"]);
const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);
/** Elements that end a paragraph where they open and close. */
const BLOCKS = new Set(
  `address article aside blockquote body br caption center dd details dialog div dl dt fieldset figcaption figure footer form
header hr html legend main nav p section summary tbody tfoot thead`.split(/\s+/),
);
const NOOP = () => {};

/** Writes the sections of an HTML document (or fragment, Markdown's HTML blocks) into a builder. */
export function htmlInto(sections: SectionBuilder, html: string): void {
  const reader = new HtmlReader(sections);
  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      onopentagname: (start, end) => reader.open(html.slice(start, end).toLowerCase()),
      onclosetag: (start, end) => reader.close(html.slice(start, end).toLowerCase()),
      ontext: (start, end) => reader.text(html.slice(start, end)),
      ontextentity: (codePoint) => reader.text(String.fromCodePoint(codePoint)),
      onattribdata: NOOP,
      onattribentity: NOOP,
      onattribend: NOOP,
      onattribname: NOOP,
      oncdata: NOOP,
      oncomment: NOOP,
      ondeclaration: NOOP,
      onend: NOOP,
      onopentagend: NOOP,
      onprocessinginstruction: NOOP,
      onselfclosingtag: NOOP,
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  reader.finish();
}

class HtmlReader {
  private hidden = 0;
  private inHead = false;
  private heading: { depth: number; text: string } | undefined;
  /** The open lists, each with the number of its last item (0 for a bulleted one). */
  private readonly lists: { ordered: boolean; items: number }[] = [];
  private tables = 0;
  private pre = 0;
  private cells = 0;
  /** The paragraph being read: its finished lines, and the current one with its list marker. */
  private lines: string[] = [];
  private line = "";
  private marker = "";

  constructor(private readonly sections: SectionBuilder) {}

  open(name: string): void {
    if (this.inHead && !HEAD_CONTENT.has(name)) this.inHead = false;
    if (HIDDEN.has(name)) this.hidden += 1;
    else if (name === "head") this.inHead = true;
    else if (HEADINGS.has(name)) {
      this.endHeading();
      this.endParagraph();
      this.heading = { depth: Number(name[1]), text: "" };
    } else if (name === "ul" || name === "ol" || name === "menu") {
      this.endHeading();
      if (!this.contained()) this.endParagraph();
      this.lists.push({ ordered: name === "ol", items: 0 });
    } else if (name === "li") {
      this.endHeading();
      const list = this.lists.at(-1);
      if (list?.ordered) list.items += 1;
      // A nested list's items are part of their parent item's line, as in Markdown.
      if (this.lists.length > 1) this.text(" ");
      else this.newLine(`${list?.ordered ? `${list.items}.` : "-"} `);
    } else if (name === "table") {
      this.endHeading();
      if (!this.contained()) this.endParagraph();
      this.tables += 1;
    } else if (name === "tr" || name === "caption") {
      this.newLine();
      this.cells = 0;
    } else if (name === "td" || name === "th") {
      this.text(this.cells > 0 ? " | " : " ");
      this.cells += 1;
    } else if (name === "pre") {
      this.endHeading();
      this.blockBoundary();
      this.pre += 1;
    } else if (name === "dt" || name === "dd") {
      this.endHeading();
      this.newLine();
    } else if (BLOCKS.has(name)) {
      this.endHeading();
      this.blockBoundary();
    }
  }

  close(name: string): void {
    if (HIDDEN.has(name)) this.hidden = Math.max(this.hidden - 1, 0);
    else if (name === "head") this.inHead = false;
    else if (HEADINGS.has(name)) this.endHeading();
    else if (name === "ul" || name === "ol" || name === "menu") {
      this.lists.pop();
      if (this.lists.length > 0) this.text(" ");
      else if (this.contained()) this.newLine();
      else this.endParagraph();
    } else if (name === "li") {
      if (this.lists.length > 1) this.text(" ");
      else this.newLine();
    } else if (name === "tr" || name === "caption" || name === "dt" || name === "dd") this.newLine();
    else if (name === "table") {
      this.tables = Math.max(this.tables - 1, 0);
      if (this.contained()) this.newLine();
      else this.endParagraph();
    } else if (name === "pre") {
      this.newLine();
      this.pre = Math.max(this.pre - 1, 0);
      this.blockBoundary();
    } else if (BLOCKS.has(name)) {
      this.endHeading();
      this.blockBoundary();
    }
  }

  text(data: string): void {
    if (this.hidden > 0) return;
    if (this.inHead) {
      if (data.trim() === "") return;
      this.inHead = false;
    }
    if (this.heading) this.heading.text += data;
    else if (this.pre > 0 && data.includes("\n")) {
      const [first = "", ...rest] = data.split("\n");
      this.line += first;
      for (const line of rest) {
        this.newLine();
        this.line += line;
      }
    } else this.line += data;
  }

  finish(): void {
    this.endHeading();
    this.endParagraph();
  }

  /** Inside a list or a table, whose paragraph a block within does not end (an item's <p> is its text). */
  private contained(): boolean {
    return this.lists.length > 0 || this.tables > 0;
  }

  private blockBoundary(): void {
    if (this.contained()) this.text(" ");
    else if (this.pre > 0) this.newLine();
    else this.endParagraph();
  }

  private endHeading(): void {
    if (this.heading === undefined) return;
    this.sections.heading(this.heading.depth, this.heading.text);
    this.heading = undefined;
  }

  private newLine(marker = ""): void {
    const text = this.pre > 0 && !this.contained() ? this.line : oneLine(this.line);
    if (text.trim() !== "") this.lines.push(`${this.marker}${text}`);
    this.line = "";
    this.marker = marker;
  }

  private endParagraph(): void {
    this.newLine();
    this.marker = "";
    if (this.lines.length > 0) this.sections.lines(this.lines.join("\n"));
    this.lines = [];
  }
}
