/**
 * Text cut into sentences, one rule for the whole service: the server cuts long paragraphs into
 * passages at sentence ends, and the digital human without an LLM answers with a passage's sentences,
 * word for word; a cut after "Mr." would leave a passage's answer or its overlap half a sentence.
 *
 * Unicode's sentence rules (Intl.Segmenter) already keep "4.50", "7:00", "a.m. on" and "e.g. the" whole,
 * but V8 ships them without ICU's abbreviation list, so they cut before any capital or digit after a
 * period: "Ask Mr. | Smith". A cut is undone here when the word before the period is one that a
 * sentence almost never ends with. Imports nothing.
 */

const SEGMENTER = new Intl.Segmenter("en", { granularity: "sentence" });

// Node 20's V8 paid for each segment in proportion to the whole text (crbug.com/326176949: 160 kB took
// 1.4 s, 640 kB 15.7 s); Node 24's does not (3 ms and 15 ms). The pieces stay, since they cost nothing and
// a runtime with the old ICU may still load this: the segmenter is given pieces of a few thousand
// characters, cut where Unicode's rules break anyway: after a line break, after ! or ? (and closing
// quotes and spaces) before a letter or digit, after a period and spaces before a capital or a letter
// of a script without case. A stretch with no such place (not prose) is cut where it must be.
const WINDOW = 2000;
const SURE_BREAK = /\r\n|[\n\r\u0085\u2028\u2029]|[!?。！？؟।]['"’”)\]]*[ \t]*(?=[\p{L}\p{N}])|\.['"’”)\]]*[ \t]+(?=[\p{Lu}\p{Lo}])/gu;

/** Where the segmenter's pieces of `text` start, the first at 0. */
function* pieceStarts(text: string): Generator<number> {
  let start = 0;
  yield start;
  while (text.length - start > 4 * WINDOW) {
    SURE_BREAK.lastIndex = start + WINDOW;
    const found = SURE_BREAK.exec(text);
    start = found && found.index < start + 4 * WINDOW ? found.index + found[0].length : start + 4 * WINDOW;
    // Never between the halves of a surrogate pair.
    if (/[\udc00-\udfff]/.test(text[start] ?? "")) start -= 1;
    yield start;
  }
}

// Written without their periods, lower case. Left out on purpose: words that end sentences as often as
// not ("etc.", "usw.", "ecc.", "a.m.", "Ave." before a capital usually close one) and words that are
// words too ("me", "es", "no"); an abbreviation missing costs one cut too many, never a lost character.
const ALWAYS = new Set([
  // Titles before a name: English, French, German, Spanish, Italian, Dutch.
  ..."mr mrs ms mx dr prof rev gen col capt lt sgt st mt jr sr mme mlle mm hr fr sra srta sig sigra dott avv ing dhr mevr".split(" "),
  // Words that lead into more of the same sentence ("z. B." and "p. ex." spaced or not).
  ..."vs approx ca cf eg ie zb dh ua bzw ggf vgl pex pej ades bijv str".split(" "),
]);

// Abbreviations that end a sentence too ("I said no."), taken as one only before a number: "No. 5",
// "Jan. 12", "p. 4", "Hauptstr. 5".
const BEFORE_NUMBER = new Set([
  ..."no nos nr pp tel vol art fig ch sec".split(" "),
  // Months: English, French, Spanish, German.
  ..."jan feb mar apr jun jul aug sep sept oct nov dec janv févr avr juil déc ene dic okt dez mär".split(" "),
]);

// The last word (or two, for "p. ex.") before a segment's closing period and the space after it; a
// word is letters with inner periods ("e.g", "z.B"), not glued to a digit ("1st.").
const ENDING = /(?<![\p{L}\p{N}.])(?:(\p{L}+)\.\s*)?([\p{L}.]*\p{L})\.\s+$/u;

/** Whether the cut after `tail` (a sentence's end) falls after an abbreviation, `next` following it. */
function endsInAbbreviation(tail: string, next: string): boolean {
  const found = ENDING.exec(tail);
  if (!found) return false;
  const word = (found[2] as string).replaceAll(".", "").toLowerCase();
  const pair = `${found[1]?.toLowerCase() ?? ""}${word}`;
  // An initial ("J. R. R. Tolkien", and the letters of "z. B."), but not the pronoun: "So did I. We left."
  if (word.length === 1 && found[2] !== "I") return true;
  if (ALWAYS.has(word) || ALWAYS.has(pair)) return true;
  // German streets are compounds: "Hauptstr. 5", "Bahnhofstr. 12".
  return /^\p{N}/u.test(next) && (BEFORE_NUMBER.has(word) || word.endsWith("str"));
}

/**
 * The text's sentences, trimmed, none empty, in order; every character but white space is in exactly
 * one. A sentence ends at ".", "!" or "?" (and at a line feed); a text without one is one sentence.
 */
export function sentencesOf(text: string): string[] {
  const starts = [...pieceStarts(text)];
  // Where Unicode's rules end sentences, as offsets in the text (a piece's last ends where the next starts).
  const ends = starts.flatMap((start, i) =>
    Array.from(SEGMENTER.segment(text.slice(start, starts[i + 1])), (s) => start + s.index + s.segment.length),
  );
  const sentences: string[] = [];
  let start = 0;
  ends.forEach((end, i) => {
    // The sentence's tail only: one of a thousand initials ("A. B. C. ...") would otherwise be read again at each.
    const tail = text.slice(Math.max(start, end - 64), end);
    if (i < ends.length - 1 && endsInAbbreviation(tail, text.slice(end, end + 2))) return;
    const sentence = text.slice(start, end).trim();
    if (sentence !== "") sentences.push(sentence);
    start = end;
  });
  return sentences;
}
