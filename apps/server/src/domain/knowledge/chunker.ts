/**
 * Sections into passages (contract guide, "Knowledge"): about a paragraph each, never across a heading,
 * each led by its heading path so the heading's words find it, short paragraphs of one section read
 * together, a long one cut at sentences (at words when a sentence is longer still), and a little overlap:
 * a passage that continues its section repeats the last sentence before it, when that is short, so an
 * answer split between two passages is whole in one of them.
 */
import { sentencesOf } from "@dhs/contract/sentences";
import type { Section } from "./document-text.js";
import type { Chunk } from "./ports.js";

export interface ChunkOptions {
  /** Short paragraphs are merged up to about this many characters. */
  targetChars?: number;
  /** A paragraph longer than this is cut. */
  maxChars?: number;
}

const OVERLAP_MAX_CHARS = 200;

export function chunksOf(sections: readonly Section[], options: ChunkOptions = {}): Chunk[] {
  const target = options.targetChars ?? 700;
  const max = options.maxChars ?? 1000;
  const chunks: Chunk[] = [];
  for (const section of sections) {
    const lead = section.headings.length > 0 ? `${section.headings.join(" > ")}\n` : "";
    const pieces = section.paragraphs.flatMap((paragraph) => (paragraph.length > max ? cut(paragraph, max) : [paragraph]));
    let body = "";
    let previous = "";
    const emit = () => {
      if (body === "") return;
      const overlap = lastSentence(previous);
      const text = overlap && !body.startsWith(overlap) ? `${overlap} ${body}` : body;
      chunks.push({ index: chunks.length, text: `${lead}${text}` });
      previous = body;
      body = "";
    };
    for (const piece of pieces) {
      if (body !== "" && body.length + piece.length + 1 > target) emit();
      body = body === "" ? piece : `${body}\n${piece}`;
    }
    emit();
  }
  return chunks;
}

/** The last sentence of a passage's body, when it is short enough to repeat. */
function lastSentence(body: string): string | undefined {
  if (body === "") return undefined;
  const sentences = sentencesIn(body);
  const last = sentences.at(-1);
  return last !== undefined && last.length <= OVERLAP_MAX_CHARS && sentences.length > 1 ? last : undefined;
}

function sentencesIn(text: string): string[] {
  // A line's end ends a sentence whatever the splitter makes of it (a list item, a table row); within a
  // line the shared splitter keeps "Mr. Smith" and "4.50" whole, and loses no character.
  return text.split("\n").flatMap((line) => sentencesOf(line));
}

/** A long paragraph in pieces of at most `max` characters, at sentence ends, or at spaces. */
function cut(paragraph: string, max: number): string[] {
  const pieces: string[] = [];
  let current = "";
  for (const sentence of sentencesIn(paragraph).flatMap((s) => (s.length > max ? words(s, max) : [s]))) {
    if (current !== "" && current.length + sentence.length + 1 > max) {
      pieces.push(current);
      current = "";
    }
    current = current === "" ? sentence : `${current} ${sentence}`;
  }
  if (current !== "") pieces.push(current);
  return pieces;
}

function words(sentence: string, max: number): string[] {
  const pieces: string[] = [];
  let current = "";
  for (const word of sentence.split(/\s+/)) {
    // A single word longer than a passage (a URL, a hash) is cut where it must be.
    for (let i = 0; i < word.length; i += max) {
      const part = word.slice(i, i + max);
      if (current !== "" && current.length + part.length + 1 > max) {
        pieces.push(current);
        current = "";
      }
      current = current === "" ? part : `${current} ${part}`;
    }
  }
  if (current !== "") pieces.push(current);
  return pieces;
}
