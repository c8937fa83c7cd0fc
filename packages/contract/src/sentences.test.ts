import { describe, expect, it } from "vitest";
import { sentencesOf } from "./sentences.js";

describe("sentencesOf", () => {
  it.each([
    ["a title before a name", "Ask Mr. Smith at the desk. He knows.", ["Ask Mr. Smith at the desk.", "He knows."]],
    ["titles in capitals or lower case", "DR. JONES is in. Ask dr. Jones.", ["DR. JONES is in.", "Ask dr. Jones."]],
    ["a saint's street", "It is on St. Mary Street. Turn left.", ["It is on St. Mary Street.", "Turn left."]],
    ["initials", "J. R. R. Tolkien wrote it. Read it.", ["J. R. R. Tolkien wrote it.", "Read it."]],
    ["a number after No.", "Take bus No. 5 to the end. Then walk.", ["Take bus No. 5 to the end.", "Then walk."]],
    ["a month before a date", "Open from Jan. 12 to Mar. 3. Closed after.", ["Open from Jan. 12 to Mar. 3.", "Closed after."]],
    ["approx. before a number", "It takes approx. 20 minutes. Enjoy.", ["It takes approx. 20 minutes.", "Enjoy."]],
    ["German z. B. and bzw.", "Nimm z. B. Brot bzw. Kuchen. Danke.", ["Nimm z. B. Brot bzw. Kuchen.", "Danke."]],
    ["German z.B. unspaced", "Etwa z.B. Berlin. Gut.", ["Etwa z.B. Berlin.", "Gut."]],
    ["a German street compound", "Wir sind in der Hauptstr. 5 im Hof. Bis bald.", ["Wir sind in der Hauptstr. 5 im Hof.", "Bis bald."]],
    ["French titles and p. ex.", "Demandez à Mme Dupont, p. ex. Lundi. Merci.", ["Demandez à Mme Dupont, p. ex. Lundi.", "Merci."]],
    ["Spanish Sra.", "Pregunte a la Sra. García. Gracias.", ["Pregunte a la Sra. García.", "Gracias."]],
    ["Italian Sig.", "Chieda al Sig. Rossi. Grazie.", ["Chieda al Sig. Rossi.", "Grazie."]],
    ["Dutch Dhr.", "Vraag het Dhr. Jansen. Dank u.", ["Vraag het Dhr. Jansen.", "Dank u."]],
    ["e.g. before a capital", "Some cities, e.g. Paris, are big. Yes.", ["Some cities, e.g. Paris, are big.", "Yes."]],
  ])("keeps a sentence whole across %s", (_name, text, want) => {
    expect(sentencesOf(text)).toEqual(want);
  });

  it("keeps decimals, times and a.m. inside their sentence", () => {
    expect(sentencesOf("Coffee costs 4.50 euros. Breakfast is at 7:00 a.m. on weekdays. Bye.")).toEqual([
      "Coffee costs 4.50 euros.",
      "Breakfast is at 7:00 a.m. on weekdays.",
      "Bye.",
    ]);
  });

  it("ends sentences at ! and ?", () => {
    expect(sentencesOf("Wow! Is it open? Yes.")).toEqual(["Wow!", "Is it open?", "Yes."]);
  });

  it.each([
    ["etc. before a capital", "Bring towels, soap etc. The pool opens at nine.", ["Bring towels, soap etc.", "The pool opens at nine."]],
    ["the pronoun I", "So did I. We left early.", ["So did I.", "We left early."]],
    ["no without a number after it", "I said no. Then I left.", ["I said no.", "Then I left."]],
  ])("ends a sentence after %s", (_name, text, want) => {
    expect(sentencesOf(text)).toEqual(want);
  });

  it("reads a period before a lower-case word as inside the sentence (Unicode's rule)", () => {
    expect(sentencesOf("Open daily, i. e. every day. the bar too.")).toEqual(["Open daily, i. e. every day. the bar too."]);
  });

  it("ends a sentence at a line feed", () => {
    expect(sentencesOf("Opening hours\nWe open at nine.")).toEqual(["Opening hours", "We open at nine."]);
  });

  it("takes a text without terminal punctuation as one sentence", () => {
    expect(sentencesOf("  the garage is open all night  ")).toEqual(["the garage is open all night"]);
  });

  it.each(["", "   ", "\n\t \n"])("finds no sentence in %j", (text) => {
    expect(sentencesOf(text)).toEqual([]);
  });

  it("returns trimmed sentences, none empty", () => {
    for (const sentence of sentencesOf("  One.   Two!\n\n  Three?  \n")) {
      expect(sentence).toBe(sentence.trim());
      expect(sentence).not.toBe("");
    }
  });

  // Every character but white space is in exactly one sentence, in order: cutting loses nothing.
  const visible = (text: string) => text.replace(/\s+/gu, "");
  it.each([
    "Ask Mr. Smith. He knows! Does he? Yes... maybe.",
    "Prices: 4.50, 7:00 a.m., No. 5, approx. 20 (ca. 30). Done",
    "z. B. Hauptstr. 5; p. ex. Lundi; Sig.ra Rossi; J. R. R. Tolkien. I. A. B.",
    '"Stop." she said. (See p. 4.) Then: go!?! Okay?!',
    "Un café coûte 2,50 €. 東京は大きい。はい。 Привет. Как дела? مرحبا. 👋🏽 Hi.",
    "Line one\nLine two.\r\n\r\nLine three. \u00a0 Four.\u2029Five.",
    "... . ! ? .. Mr. . St. ",
  ])("loses no character of %j", (text) => {
    expect(visible(sentencesOf(text).join(" "))).toBe(visible(text));
  });

  // V8's segmenter slows with the text's length for each sentence: 256 KiB read whole take tens of seconds.
  it("splits a 256 KiB text as it splits its parts, in moments", () => {
    const part = "Ask Mr. Smith about the rooms. He is at No. 5! Is it 4.50? Yes, 東京は大きい。 ";
    const sentences = sentencesOf(part.repeat(3_300));
    expect(sentencesOf(part)).toEqual(["Ask Mr. Smith about the rooms.", "He is at No. 5!", "Is it 4.50?", "Yes, 東京は大きい。"]);
    expect(sentences).toEqual(Array.from({ length: 3_300 }, () => sentencesOf(part)).flat());
  });

  it.each([
    ["no place Unicode surely breaks at", "a. 1 ".repeat(50_000)],
    ["no white space", "x.".repeat(130_000)],
    ["emoji only", "😀".repeat(130_000)],
    ["initials only", "A. B. ".repeat(44_000)],
  ])("loses no character of a 256 KiB text with %s, and cuts no emoji in half", (_name, text) => {
    const sentences = sentencesOf(text);
    expect(visible(sentences.join(" "))).toBe(visible(text));
    expect(sentences.every((s) => s.isWellFormed())).toBe(true);
  });

  it("loses no character of generated texts", () => {
    const pieces = [
      "Mr.",
      "Smith",
      "St.",
      "No.",
      "5",
      "4.50",
      "7:00",
      "a.m.",
      "z.",
      "B.",
      "I.",
      "etc.",
      "!",
      "?",
      ".",
      "\n",
      "  ",
      "é",
      "😀",
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let n = 0; n < 300; n++) {
      const words = Array.from({ length: 1 + Math.floor(random() * 20) }, () => pieces[Math.floor(random() * pieces.length)]);
      const text = words.join(random() < 0.5 ? " " : "");
      const sentences = sentencesOf(text);
      expect(visible(sentences.join(" ")), JSON.stringify(text)).toBe(visible(text));
      expect(sentences.every((s) => s !== "" && s === s.trim())).toBe(true);
    }
  });
});
