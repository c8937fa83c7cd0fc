/**
 * What one line of Markdown is in the block rules' terms: a quote's markers, a fence, a heading, a list
 * item, an HTML block, a table row, a reference definition, and how far it is indented. Both readers of
 * blocks ask these questions (markdown-text.ts, and markdown-list.ts while a list is open), and they are
 * kept here apart from what the readers do with the answers. Each pattern is anchored to the line and
 * looks at it once, so a line costs about its length however hostile the document.
 */

const QUOTE_PREFIX = /^(?: {0,3}>[ \t]?)+/;
const FENCE = /^ {0,3}(`{3,}(?=[^`]*$)|~{3,})/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*))?$/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
const ITEM = /^[ \t]*([-*+]|\d{1,9}[.)])(?:([ \t]+)(.*))?$/;
/** The items that may interrupt a paragraph: a bullet, or "1." with text. */
const INTERRUPTING_MARKER = /^(?:[-*+]|1[.)])$/;
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

/** A list item's line: its marker ("-", "*", "+", "7." or "7)"), the white space after it, and its text. */
export interface ItemLine {
  marker: string;
  spaces: number;
  text: string;
}

/** The block quote markers a line starts with, "" when none: a quote is read as its text. */
export function quotePrefix(line: string): string {
  return QUOTE_PREFIX.exec(line)?.[0] ?? "";
}

/** Leading white space in columns, a tab to the next multiple of four. */
export function indentOf(text: string): number {
  let columns = 0;
  for (const char of text) {
    if (char === " ") columns += 1;
    else if (char === "\t") columns += 4 - (columns % 4);
    else break;
  }
  return columns;
}

/** A thematic break: three or more of one of - * _, and white space. */
export function isBreak(text: string): boolean {
  return /^(?:-{3,}|\*{3,}|_{3,})$/.test(text.replace(/[ \t]/g, ""));
}

/** The marker ("```", "~~~~", ...) of the fence a line opens, if it opens one. */
export function fenceOpening(text: string): string | undefined {
  return FENCE.exec(text)?.[1];
}

/** Whether a line closes the fence its marker opened: the same character, as many or more, alone. */
export function closesFence(text: string, marker: string): boolean {
  const closing = FENCE.exec(text)?.[1] ?? "";
  return closing[0] === marker[0] && closing.length >= marker.length && text.trim() === closing;
}

/** An ATX heading's depth and its text without its closing "#"s. */
export function atxHeading(text: string): { depth: number; title: string } | undefined {
  const atx = ATX.exec(text);
  return atx ? { depth: atx[1]?.length ?? 1, title: withoutClosingHashes(atx[2] ?? "") } : undefined;
}

/** The depth of the heading a setext underline makes of the paragraph above it: 1 for "=", 2 for "-". */
export function setextDepth(text: string): number | undefined {
  const setext = SETEXT.exec(text);
  if (!setext) return undefined;
  return setext[1]?.startsWith("=") ? 1 : 2;
}

/** A list item's line, if the line is one (a thematic break of "-" or "*" is not). */
export function itemLine(text: string): ItemLine | undefined {
  if (isBreak(text)) return undefined;
  const item = ITEM.exec(text);
  return item ? { marker: item[1] ?? "-", spaces: item[2]?.length ?? 0, text: item[3] ?? "" } : undefined;
}

/** Whether an item may interrupt a paragraph rather than be read as the paragraph's text. */
export function interruptsParagraph(item: ItemLine): boolean {
  return INTERRUPTING_MARKER.test(item.marker) && item.text.trim() !== "";
}

/** The HTML block a line starts, if it starts one, with the pattern of the line that ends it. */
export function htmlBlockStart(text: string): { end: RegExp | undefined } | undefined {
  const block = HTML_BLOCKS.find(([begins]) => begins.test(text));
  return block ? { end: block[1] } : undefined;
}

/** Whether a line is an HTML tag alone, which starts an HTML block where a paragraph could start. */
export function isLoneTag(text: string): boolean {
  return LONE_TAG.test(text);
}

/** Whether a line starts a block that ends a list item's lazy text: a fence, a heading, a break or HTML. */
export function startsBlock(text: string): boolean {
  return FENCE.test(text) || ATX.test(text) || isBreak(text) || HTML_BLOCKS.some(([begins]) => begins.test(text));
}

/** Whether a line is a table's delimiter row ("|:--|--:|"), which makes the line above it a header. */
export function isDelimiterRow(text: string): boolean {
  return DELIMITER_ROW.test(text.replace(/[ \t]/g, ""));
}

/** A table row's cells, as Markdown still to be read, an escaped bar in a cell its bar. */
export function tableCells(line: string): string[] {
  const cells = line
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "");
  return cells.split(/(?<!\\)\|/).map((cell) => cell.replaceAll("\\|", "|"));
}

/** A reference definition ("[label]: url"), which is no text but says where "[text][label]" links. */
export function referenceDefinition(text: string): { label: string; href: string } | undefined {
  const definition = DEFINITION.exec(text);
  return definition ? { label: definition[1] ?? "", href: definition[2] ?? "" } : undefined;
}

/** An indented code block's line without the indentation that made it code. */
export function withoutCodeIndent(text: string): string {
  return text.replace(CODE_INDENT, "");
}

/** An ATX heading's text without its closing "#"s (a "#" that ends a word is the word's). */
function withoutClosingHashes(title: string): string {
  const trimmed = title.trimEnd();
  let end = trimmed.length;
  while (end > 0 && trimmed[end - 1] === "#") end -= 1;
  if (end === trimmed.length) return trimmed;
  return end === 0 || trimmed[end - 1] === " " || trimmed[end - 1] === "\t" ? trimmed.slice(0, end) : trimmed;
}
