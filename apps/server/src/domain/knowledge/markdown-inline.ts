/**
 * The text of inline Markdown (a paragraph, a heading, a list item, a table cell): emphasis and code
 * marks removed, a link is its text, an image its alt text, HTML tags dropped (and what is inside an
 * inline <script> or <style>), character references decoded.
 *
 * marked's inline lexer reads it when it is short and holds little markup: marked is quadratic in a
 * text's delimiters (1 MiB of "*a" takes minutes) and slow on dense markup even in short texts (1 MiB of
 * "!" in paragraphs of 1 000 characters takes two seconds). Other text, which prose hardly ever is, has
 * its markup removed by a few patterns of bounded reach instead; text without markup is its own text.
 */
import { Lexer, type MarkedToken, type Token } from "marked";

const INLINE_LIMIT = 2_000;
/** The most characters that may be markup (emphasis, code, links, tags, references) in a text marked reads. */
const MARKUP_LIMIT = 32;
const MARKUP = new Set(["*", "_", "~", "`", "[", "]", "<", ">", "!", "@", "&", "\\"]);
/** Reference definitions kept: marked looks each reference up in a list of them. */
const MAX_DEFINITIONS = 200;
const LINK = /!?\[([^[\]\n]{0,500})\]\([^()\n]{0,2000}\)/g;
const TAG = /<\/?[A-Za-z][A-Za-z0-9-]{0,50}(?:\s[^<>\n]{0,500})?\/?>/g;
const MARK = /\\([!-/:-@[-`{-~])|\*+|~~+|`+|(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu;
const ENTITY = /&(?:#(\d{1,7})|#[xX]([\da-fA-F]{1,6})|([A-Za-z]{2,8}));/g;
const NAMED: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00A0",
  copy: "©",
  reg: "®",
  trade: "™",
  hellip: "…",
  ndash: "–",
  mdash: "—",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  euro: "€",
};
const RAW_TAG = /^<(\/?)(script|style|noscript|template)\b/i;

/** Inline Markdown's text, with the document's reference definitions ("[label]: url") for its links. */
export class MarkdownInline {
  private readonly lexer = new Lexer({ gfm: true });
  private definitions = 0;
  private rawTag = false;

  /** Remembers a reference definition, so that "[text][label]" is read as the link it is. */
  define(label: string, href: string): void {
    const key = label.replace(/\s+/g, " ").toLowerCase();
    if (this.definitions >= MAX_DEFINITIONS || Object.hasOwn(this.lexer.tokens.links, key)) return;
    this.definitions += 1;
    this.lexer.tokens.links[key] = { href, title: "" };
  }

  text(source: string): string {
    this.rawTag = false;
    const markup = markupIn(source);
    // Without markup, marked would give the text back as it is (an autolink is its address).
    if (markup === 0) return source;
    if (source.length > INLINE_LIMIT || markup > MARKUP_LIMIT)
      return decodeEntities(source.replace(LINK, "$1").replace(TAG, "").replace(MARK, "$1"));
    this.lexer.state.inRawBlock = false;
    return this.tokensText(this.lexer.inlineTokens(source));
  }

  private tokensText(tokens: readonly Token[]): string {
    let text = "";
    for (const inner of tokens) {
      const token = inner as MarkedToken;
      if (token.type === "html") {
        const raw = RAW_TAG.exec(token.text);
        if (raw) this.rawTag = raw[1] === "";
        else if (/^<br\b/i.test(token.text)) text += " ";
        continue;
      }
      if (this.rawTag) continue;
      if (token.type === "text") text += token.tokens ? this.tokensText(token.tokens) : decodeEntities(token.text);
      else if (token.type === "escape" || token.type === "codespan" || token.type === "image") text += token.text;
      else if (token.type === "strong" || token.type === "em" || token.type === "del" || token.type === "link")
        text += this.tokensText(token.tokens);
      else if (token.type === "br") text += " ";
    }
    return text;
  }
}

/** How many characters of a text may be markup, counted up to one more than marked is given. */
function markupIn(source: string): number {
  let markup = 0;
  for (const char of source) if (MARKUP.has(char) && ++markup > MARKUP_LIMIT) break;
  return markup;
}

/** Markdown keeps character references as written: these are the numeric ones and those prose uses. */
function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(ENTITY, (entity, decimal?: string, hex?: string, name?: string) => {
    if (name !== undefined) return Object.hasOwn(NAMED, name) ? (NAMED[name] ?? entity) : entity;
    const codePoint = decimal !== undefined ? Number(decimal) : Number.parseInt(hex ?? "", 16);
    const valid = codePoint > 0 && codePoint <= 0x10ffff && (codePoint < 0xd800 || codePoint > 0xdfff);
    return valid ? String.fromCodePoint(codePoint) : "\uFFFD";
  });
}
