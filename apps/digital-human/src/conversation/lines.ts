/** What the digital human says, and when: no language model, a few lines a person would expect. */

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

export function farewellOnLeaving(identity: string): string {
  return `Goodbye, ${spokenName(identity)}. Come back soon.`;
}

export function farewellAtTimeLimit(identity: string): string {
  return `We are almost out of time, ${spokenName(identity)}. Thank you for talking with me. Goodbye!`;
}

export const ACKNOWLEDGEMENTS = ["I see.", "Mm-hmm, go on.", "Right.", "That's interesting.", "Got it.", "I hear you."];

/** A short acknowledgement, never the same one twice in a row. */
export function acknowledgement(previous: string | undefined, random: () => number = Math.random): string {
  const choices = ACKNOWLEDGEMENTS.filter((line) => line !== previous);
  return choices[Math.floor(random() * choices.length)] ?? "I see.";
}

/** Seconds before the session's end at which the farewell starts, so it is heard whole. */
export const FAREWELL_LEAD_S = 8;
