/**
 * A page's text from the pieces PDF.js finds on it. A PDF has no paragraphs, only text placed at
 * positions: a line ends where PDF.js says one does, and a paragraph where the next line is set further
 * down than a line's height, back up (a new column), or in another size (a heading), which is how a
 * reader sees one too.
 */

/** A piece of text as placed on the page: its baseline's height and its font size, in points. */
export interface PositionedText {
  text: string;
  y: number;
  size: number;
  /** The piece ends its line. */
  endsLine: boolean;
}

/** How far below the last line, in line heights, the next one starts a paragraph. */
const PARAGRAPH_GAP = 1.6;
/** How much larger than its neighbour a line's text is when it is a heading. */
const HEADING_RATIO = 1.2;

/** The page's text: lines in reading order, paragraphs apart by a blank line. */
export function linesToText(items: readonly PositionedText[]): string {
  const paragraphs: string[][] = [];
  let lines: string[] = [];
  let line = "";
  let last: { y: number; size: number } | undefined;
  let first: { y: number; size: number } | undefined;
  const endLine = (): void => {
    const text = line.replace(/\s+/g, " ").trim();
    line = "";
    const at = first;
    first = undefined;
    if (text === "" || at === undefined) return;
    if (last !== undefined) {
      const drop = last.y - at.y;
      const height = Math.max(last.size, at.size, 1);
      // A heading is set larger than the text under it: a change of size starts a paragraph too.
      const resized = Math.max(last.size, at.size) > Math.min(last.size, at.size) * HEADING_RATIO;
      if (drop > height * PARAGRAPH_GAP || drop < -height || resized) {
        if (lines.length > 0) paragraphs.push(lines);
        lines = [];
      }
    }
    lines.push(text);
    last = at;
  };
  for (const item of items) {
    if (item.text.trim() !== "" && first === undefined) first = { y: item.y, size: item.size };
    line += item.text;
    if (item.endsLine) endLine();
  }
  endLine();
  if (lines.length > 0) paragraphs.push(lines);
  return paragraphs.map((p) => p.join("\n")).join("\n\n");
}
