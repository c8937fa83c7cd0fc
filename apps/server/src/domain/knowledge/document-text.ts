/**
 * A document's text as a reader sees it, in sections: a heading path and the paragraphs under it, the
 * markup of Markdown (markdown-text.ts) and HTML (html-text.ts) removed. Passages are cut from these
 * (chunker.ts), so a passage never runs across a heading and can say which heading it is under.
 *
 * The content is a customer's, up to 1 MiB: nothing here throws on malformed markup or takes more than
 * about linear time, whatever the content.
 */
import type { DocumentFormat } from "@dhs/contract";
import { htmlInto } from "./html-text.js";
import { markdownInto } from "./markdown-text.js";
import { type Section, SectionBuilder, shownCharacters } from "./section-builder.js";

export type { Section } from "./section-builder.js";

const BLANK_LINE = /\n[^\S\n]*\n/;

/** The sections of a document, in order; none when it has no text. */
export function sectionsOf(format: DocumentFormat, content: string): Section[] {
  const text = shownCharacters(content.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n"));
  const sections = new SectionBuilder();
  if (format === "markdown") markdownInto(sections, text);
  else if (format === "html") htmlInto(sections, text);
  else {
    // Plain text has no headings: its paragraphs are what blank lines separate, their lines kept (an
    // address, opening hours). A line that looks like a heading (in capitals, or ending with ":") stays
    // in its paragraph, where its words are searched all the same.
    for (const paragraph of text.split(BLANK_LINE)) sections.lines(paragraph.replace(/^[^\S\n]+/gm, ""));
  }
  return sections.sections();
}
