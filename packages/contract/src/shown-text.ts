/**
 * The characters a text people hear or read may hold, one rule for the whole service: no control
 * character but tab and line feed; no bidirectional embedding, override or isolate (U+202A-U+202E,
 * U+2066-U+2069), which reorder what is shown around them (a name that shows as another); and at least one
 * visible character. The service refuses what breaks it where the text enters (transcripts, `say`,
 * `addSessionContext`, the conversation's reports; the contract's patterns of a persona's name,
 * description, instructions and greeting and of `participant_identity` say the same); the digital human's
 * worker cleans what it heard or was given by it before it posts (toShownText). Imports nothing.
 */

const CONTROL = /(?![\t\n])\p{Cc}/u;
const BIDI = /[\u202a-\u202e\u2066-\u2069]/u;
const VISIBLE = /[^\p{White_Space}\p{Cf}\p{Cc}\p{M}\u115f\u1160\u3164\uffa0]/u;

/** What makes the text one people cannot be shown, or undefined when it is fine. */
export function shownTextProblem(text: string): string | undefined {
  if (CONTROL.test(text)) return "has a control character (only tab and line feed are allowed)";
  if (BIDI.test(text)) return "has a bidirectional embedding, override or isolate character";
  if (!VISIBLE.test(text)) return "has no visible character";
  return undefined;
}

/**
 * The text as the rule takes it: lone surrogates made U+FFFD, other control characters made spaces, bidirectional controls dropped,
 * trimmed, and cut to at most `maxUnits` UTF-16 code units at a grapheme's end (never inside an emoji or
 * a letter with its marks). Empty when nothing visible is left.
 */
export function toShownText(text: string, maxUnits: number): string {
  const clean = text.toWellFormed().replace(new RegExp(CONTROL, "gu"), " ").replace(new RegExp(BIDI, "gu"), "").trim();
  const cut = clean.length <= maxUnits ? clean : cutAtGrapheme(clean, maxUnits).trimEnd();
  return shownTextProblem(cut) === undefined ? cut : "";
}

function cutAtGrapheme(text: string, maxUnits: number): string {
  let end = 0;
  for (const { index, segment } of new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text)) {
    if (index + segment.length > maxUnits) break;
    end = index + segment.length;
  }
  return text.slice(0, end);
}
