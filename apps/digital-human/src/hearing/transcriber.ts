/**
 * What the agent asks of speech recognition: each of the participant's turns, as the VAD hears it, in;
 * its words out. The audio is given while the participant is still speaking, so a recognizer that decodes
 * as it goes has little left to do when the turn ends. PocketSphinx implements it, and so does any
 * speech-to-text plugin of `@livekit/agents` through providers/plugin-transcriber.ts; the agent publishes
 * whatever it returns as the participant's caption.
 */
import type { Speech } from "../speaking/voice.js";

export interface Transcriber {
  /** Starts a turn. One at a time: a turn started before the last one ended replaces it. */
  startTurn(): TranscriberTurn;
}

export interface TranscriberTurn {
  /** More of the turn's audio, in order. */
  hear(speech: Speech): void;
  /** The words heard in the whole turn (PocketSphinx's in lower case, a provider's as it writes them), or "" when none were recognized. */
  end(): Promise<string>;
}

/** The words of a whole recording, as one turn. */
export function transcribe(transcriber: Transcriber, speech: Speech): Promise<string> {
  const turn = transcriber.startTurn();
  turn.hear(speech);
  return turn.end();
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
