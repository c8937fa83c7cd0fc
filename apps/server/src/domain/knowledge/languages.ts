/**
 * The languages a document's words are stemmed in: the text search configurations PostgreSQL 15 ships
 * (`\dF`), by the BCP 47 primary subtag. One list for both indexes, so the contract's promise ("words are
 * stemmed in ...") is one fact.
 */
const CONFIGURATIONS: Readonly<Record<string, string>> = {
  ar: "arabic",
  hy: "armenian",
  eu: "basque",
  ca: "catalan",
  da: "danish",
  nl: "dutch",
  en: "english",
  fi: "finnish",
  fr: "french",
  de: "german",
  el: "greek",
  hi: "hindi",
  hu: "hungarian",
  id: "indonesian",
  ga: "irish",
  it: "italian",
  lt: "lithuanian",
  ne: "nepali",
  no: "norwegian",
  nb: "norwegian",
  nn: "norwegian",
  pt: "portuguese",
  ro: "romanian",
  ru: "russian",
  sr: "serbian",
  es: "spanish",
  sv: "swedish",
  ta: "tamil",
  tr: "turkish",
  yi: "yiddish",
};

export const DEFAULT_DOCUMENT_LANGUAGE = "en";

/** PostgreSQL's text search configuration for a BCP 47 tag (`en-GB` is `english`); undefined when none. */
export function textSearchConfiguration(tag: string): string | undefined {
  const primary = tag.split("-")[0]?.toLowerCase() ?? "";
  return Object.hasOwn(CONFIGURATIONS, primary) ? CONFIGURATIONS[primary] : undefined;
}

/** The configuration a document is indexed in: `simple` (no stemming) for a tag the service would have refused. */
export function configurationOf(language: string): string {
  return textSearchConfiguration(language) ?? "simple";
}
