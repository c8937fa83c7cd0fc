/** What the digital human says, and when: no language model, a few lines a person would expect. */
import { ENGLISH, type SpokenLines } from "./spoken-lines.js";

/** An identity as it is spoken: "ada_lovelace-42" is read as "ada lovelace 42". */
export function spokenName(identity: string): string {
  return identity.replace(/[_\-.@+]+/g, " ").trim() || "there";
}

/**
 * A persona's greeting (contract guide, "Digital humans") with its placeholders filled:
 * `{participant_identity}` as the identity is spoken, `{name}` with the digital human's own name. Any
 * other text is said as written.
 */
export function greeting(template: string, identity: string, ownName: string): string {
  return template.replaceAll("{participant_identity}", spokenName(identity)).replaceAll("{name}", ownName);
}

export function farewellOnLeaving(identity: string, lines: SpokenLines = ENGLISH): string {
  return lines.farewellOnLeaving(spokenName(identity));
}

export function farewellAtTimeLimit(identity: string, lines: SpokenLines = ENGLISH): string {
  return lines.farewellAtTimeLimit(spokenName(identity));
}

export const ACKNOWLEDGEMENTS = ENGLISH.acknowledgements;

/** A short acknowledgement in the lines' language, never the same one twice in a row. */
export function acknowledgement(previous: string | undefined, random: () => number = Math.random, lines: SpokenLines = ENGLISH): string {
  const choices = lines.acknowledgements.filter((line) => line !== previous);
  return choices[Math.floor(random() * choices.length)] ?? lines.acknowledgements[0];
}

/** Seconds before the session's end at which the farewell starts, so it is heard whole. */
export const FAREWELL_LEAD_S = 8;
