/**
 * The answer of a digital human without an LLM (contract guide, "Knowledge"): when the best passage
 * clearly answers the turn, its most relevant sentence or two, word for word; otherwise nothing, and the
 * digital human acknowledges as it always did. It never says anything that is not in a passage.
 *
 * "Clearly" is counted in the turn's content words (stop words dropped, words compared by their English
 * stems, as the index compares them): the chosen sentences must hold at least half of them, and at least
 * one. "What time is breakfast?" has two, "time" and "breakfast"; "Breakfast is served from 7:00 to
 * 10:30." holds one: it answers. "Do you like movies?" finds nothing to say.
 */
import { sentencesOf } from "@dhs/contract/sentences";
import { stemmer } from "@orama/stemmers/english";
import type { Passage } from "./turn-knowledge.js";

// A question's words that say nothing of what it is about (PostgreSQL's English stop words, and the
// words of asking).
const STOP = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below between both but by " +
    "can could did do does doing down during each few for from further had has have having he her here hers herself him " +
    "himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other " +
    "our ours ourselves out over own same she should so some such than that the their theirs them themselves then there " +
    "these they this those through to too under until up very was we were what when where which while who whom why will " +
    "with would you your yours yourself yourselves tell please know like want much many thank thanks hi hello"
  ).split(" "),
);

/** A text's content words by their stems; a hyphenated word counts whole too, so "check-out" is not "check-in". */
function contentStems(text: string): Set<string> {
  const stems = new Set<string>();
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu) ?? []) {
    if (word.includes("-")) stems.add(word);
    for (const part of word.split("-")) if (!STOP.has(part)) stems.add(stemmer(part));
  }
  return stems;
}

/** A passage's sentences, as written, its heading line (the first of several lines) left out. */
function passageSentences(text: string): string[] {
  const lines = text.split("\n");
  // The shared splitter keeps "4.50", "7:00" and "Mr. Smith" inside their sentences.
  return sentencesOf(lines.length > 1 ? lines.slice(1).join(" ") : text);
}

/** The sentence or two of the best passage that answer `heard`, verbatim; undefined when none clearly does. */
export function answerFrom(passages: readonly Passage[], heard: string): string | undefined {
  const best = passages[0];
  if (!best) return undefined;
  const asked = contentStems(heard);
  if (asked.size === 0) return undefined;
  const sentences = passageSentences(best.text);
  const hits = sentences.map((sentence) => [...contentStems(sentence)].filter((stem) => asked.has(stem)));
  let top = -1;
  hits.forEach((found, i) => {
    if (found.length > 0 && (top < 0 || found.length > (hits[top]?.length ?? 0))) top = i;
  });
  if (top < 0) return undefined;
  const chosen = [sentences[top] as string];
  const covered = new Set(hits[top]);
  // The next sentence joins when it adds something the participant asked about (a second half of the answer).
  const next = hits[top + 1];
  if (next?.some((stem) => !covered.has(stem))) {
    chosen.push(sentences[top + 1] as string);
    for (const stem of next) covered.add(stem);
  }
  return covered.size * 2 >= asked.size ? chosen.join(" ") : undefined;
}
