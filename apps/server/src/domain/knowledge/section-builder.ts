/**
 * What each format's reader (plain text, Markdown, HTML) writes a document's text into: headings, which
 * open a section under their path, and paragraphs, tidied one way whatever the format, so a passage reads
 * the same whether it came from Markdown or HTML.
 */

/** A heading's text and the paragraphs under it, before another heading. */
export interface Section {
  /** The heading path, outermost first; empty before the first heading. */
  headings: string[];
  paragraphs: string[];
}

/**
 * A "heading" longer than this is a paragraph: an HTML heading never closed, or a Markdown line that
 * happens to start with "#", would otherwise put its whole text in every passage's heading line.
 */
export const MAX_HEADING_CHARS = 200;

/**
 * The text as a passage may show it: C0 controls but tab and line feed, DEL and C1 controls as spaces,
 * and bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) dropped, as the
 * service's shown-text rule drops them: a passage is said and captioned as it is, and one of those would
 * make it read otherwise on the participant's screen. The service refuses controls in content, but a
 * character reference (&#7;, &#x202E;) decodes to one. Read by code: Biome refuses control characters in
 * a regular expression.
 */
export function shownCharacters(text: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const control = (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f);
    const bidi = (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
    if (control || bidi) {
      out += `${text.slice(from, i)}${control ? " " : ""}`;
      from = i + 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}
const SPACE_RUN = /\s+/g;
const INNER_SPACE_RUN = /(?<=\S)\s+/g;
const LONG_INDENT = /^\s{16,}/;

/** A text on one line: its runs of white space (line breaks too) one space, its ends trimmed. */
export function oneLine(text: string): string {
  return shownCharacters(text).replace(SPACE_RUN, " ").trim();
}

/**
 * A text whose line breaks matter (a list, a table, code): each line's inner white space one space,
 * blank lines dropped. A line's indentation stays (code's says what is inside what), up to 16 spaces.
 */
export function keptLines(text: string): string {
  const lines: string[] = [];
  for (const line of shownCharacters(text).split("\n")) {
    const tidy = line.replace(INNER_SPACE_RUN, " ").replace(LONG_INDENT, " ".repeat(16)).trimEnd();
    if (tidy.trim() !== "") lines.push(tidy);
  }
  return lines.join("\n");
}

export class SectionBuilder {
  private readonly done: Section[] = [];
  private path: { depth: number; text: string }[] = [];
  private current: Section | undefined;

  /** A heading of a depth (1 the outermost): the next paragraphs are under it and its outer headings. */
  heading(depth: number, text: string): void {
    const title = oneLine(text);
    if (title === "") return;
    if (title.length > MAX_HEADING_CHARS) {
      this.paragraph(title);
      return;
    }
    this.path = this.path.filter((heading) => heading.depth < depth);
    this.path.push({ depth, text: title });
    this.current = undefined;
  }

  /** A paragraph of prose: its white space is one space. */
  paragraph(text: string): void {
    this.add(oneLine(text));
  }

  /** A paragraph whose line breaks matter (see keptLines). */
  lines(text: string): void {
    this.add(keptLines(text));
  }

  /** The sections that have paragraphs, in document order. */
  sections(): Section[] {
    return this.done;
  }

  private add(paragraph: string): void {
    if (paragraph === "") return;
    if (this.current === undefined) {
      this.current = { headings: this.path.map((heading) => heading.text), paragraphs: [] };
      this.done.push(this.current);
    }
    this.current.paragraphs.push(paragraph);
  }
}
