/**
 * How the memory index (knowledge-store.ts) turns a passage or a question into words, per PostgreSQL
 * text search configuration, so both stores find the same: lower-cased runs of letters and digits, the
 * configuration's stop words dropped (PostgreSQL's own lists for English and French; other languages
 * keep theirs, which BM25 weighs down as words nearly every passage holds), the rest stemmed by Orama's
 * Snowball stemmer of the language (none for Basque, Catalan and Yiddish: their words match as written).
 *
 * Each word ends with END: Orama's index matches a query word as a prefix of the indexed ones ("spa"
 * would find "spacious"), and the marker makes that match the whole word only.
 */
import type { Tokenizer } from "@orama/orama";
import { stemmer as arabic } from "@orama/stemmers/arabic";
import { stemmer as armenian } from "@orama/stemmers/armenian";
import { stemmer as danish } from "@orama/stemmers/danish";
import { stemmer as dutch } from "@orama/stemmers/dutch";
import { stemmer as english } from "@orama/stemmers/english";
import { stemmer as finnish } from "@orama/stemmers/finnish";
import { stemmer as french } from "@orama/stemmers/french";
import { stemmer as german } from "@orama/stemmers/german";
import { stemmer as greek } from "@orama/stemmers/greek";
import { stemmer as hungarian } from "@orama/stemmers/hungarian";
import { stemmer as hindi } from "@orama/stemmers/indian";
import { stemmer as indonesian } from "@orama/stemmers/indonesian";
import { stemmer as irish } from "@orama/stemmers/irish";
import { stemmer as italian } from "@orama/stemmers/italian";
import { stemmer as lithuanian } from "@orama/stemmers/lithuanian";
import { stemmer as nepali } from "@orama/stemmers/nepali";
import { stemmer as norwegian } from "@orama/stemmers/norwegian";
import { stemmer as portuguese } from "@orama/stemmers/portuguese";
import { stemmer as romanian } from "@orama/stemmers/romanian";
import { stemmer as russian } from "@orama/stemmers/russian";
import { stemmer as serbian } from "@orama/stemmers/serbian";
import { stemmer as spanish } from "@orama/stemmers/spanish";
import { stemmer as swedish } from "@orama/stemmers/swedish";
import { stemmer as tamil } from "@orama/stemmers/tamil";
import { stemmer as turkish } from "@orama/stemmers/turkish";

const END = "$";

const STEMMERS: Readonly<Record<string, (word: string) => string>> = {
  arabic,
  armenian,
  danish,
  dutch,
  english,
  finnish,
  french,
  german,
  greek,
  hindi,
  hungarian,
  indonesian,
  irish,
  italian,
  lithuanian,
  nepali,
  norwegian,
  portuguese,
  romanian,
  russian,
  serbian,
  spanish,
  swedish,
  tamil,
  turkish,
};

// PostgreSQL 15's english.stop and french.stop (share/tsearch_data), word for word.
const STOP_WORDS: Readonly<Record<string, ReadonlySet<string>>> = {
  english: new Set(
    `i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself
they them their theirs themselves what which who whom this that these those am is are was were be been being have has had having do
does did doing a an the and but if or because as until while of at by for with about against between into through during before after
above below to from up down in out on off over under again further then once here there when where why how all any both each few more
most other some such no nor not only own same so than too very s t can will just don should now`.split(/\s+/),
  ),
  french: new Set(
    `au aux avec ce ces dans de des du elle en et eux il je la le leur lui ma mais me même mes moi mon ne nos notre nous on ou par pas
pour qu que qui sa se ses son sur ta te tes toi ton tu un une vos votre vous c d j l à m n s t y été étée étées étés étant étante étants
étantes suis es est sommes êtes sont serai seras sera serons serez seront serais serait serions seriez seraient étais était étions étiez
étaient fus fut fûmes fûtes furent sois soit soyons soyez soient fusse fusses fût fussions fussiez fussent ayant ayante ayantes ayants eu
eue eues eus ai as avons avez ont aurai auras aura aurons aurez auront aurais aurait aurions auriez auraient avais avait avions aviez
avaient eut eûmes eûtes eurent aie aies ait ayons ayez aient eusse eusses eût eussions eussiez eussent`.split(/\s+/),
  ),
};

const NOT_A_WORD = /[^\p{L}\p{M}\p{N}]+/u;

/** The words of a text in a configuration, once each, in the order they first come. */
export function passageWords(configuration: string, text: string): string[] {
  const stem = STEMMERS[configuration] ?? ((word: string) => word);
  const stop = STOP_WORDS[configuration];
  const words = new Set<string>();
  for (const word of text.normalize("NFC").toLowerCase().split(NOT_A_WORD)) {
    if (word === "" || stop?.has(word)) continue;
    words.add(`${stem(word)}${END}`);
  }
  return [...words];
}

/** An Orama tokenizer of a configuration (one Orama database each). */
export function passageTokenizer(configuration: string): Tokenizer {
  return { language: configuration, normalizationCache: new Map(), tokenize: (raw) => passageWords(configuration, raw) };
}
