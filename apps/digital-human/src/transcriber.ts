/**
 * What the agent asks of speech recognition: a participant's turn, as the VAD cut it, in; its words out.
 * A team that brings a better recognizer (a cloud STT through an `@livekit/agents` plugin, say)
 * implements this; the agent publishes whatever it returns as the participant's caption.
 */
import type { Speech } from "./voice.js";

export interface Transcriber {
  /** The words heard in one turn, lower case, or "" when none were recognized. */
  transcribe(speech: Speech): Promise<string>;
}

/** Words as they are compared: lower case, letters, digits and apostrophes only. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9']+/g) ?? [];
}

/**
 * The share of the reference's words that the hypothesis has, each word counted as often as it occurs
 * in both: how much of what was said a recognizer caught, whatever it added.
 */
export function wordRecall(reference: string, hypothesis: string): number {
  const expected = words(reference);
  if (expected.length === 0) return 1;
  const heard = new Map<string, number>();
  for (const word of words(hypothesis)) heard.set(word, (heard.get(word) ?? 0) + 1);
  let found = 0;
  for (const word of expected) {
    const left = heard.get(word) ?? 0;
    if (left > 0) {
      found++;
      heard.set(word, left - 1);
    }
  }
  return found / expected.length;
}
