/**
 * The persona's instructions with the language it speaks (its `language`, contract guide "Digital
 * humans"): an LLM answers in the language it is written to, and the persona's instructions are often
 * English while the participant speaks another. English needs no line: the instructions are unchanged.
 */
const NAMES = new Intl.DisplayNames(["en"], { type: "language", fallback: "code" });

export function inLanguage(instructions: string, language: string): string {
  const primary = language.toLowerCase().split("-")[0];
  if (primary === "en") return instructions;
  let name: string;
  try {
    name = NAMES.of(language) ?? language;
  } catch {
    // A tag Intl cannot read (the contract's pattern is wider than BCP 47's grammar): named by its code.
    name = language;
  }
  return `${instructions}\n\nAlways answer in ${name} (${language}), whatever language the instructions are written in.`;
}
