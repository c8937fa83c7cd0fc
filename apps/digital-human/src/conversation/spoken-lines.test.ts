import { agentCatalog } from "@dhs/catalog";
import { describe, expect, it } from "vitest";
import { acknowledgement, farewellOnLeaving } from "./lines.js";
import { ENGLISH, spokenLines } from "./spoken-lines.js";

describe("the digital human's own lines", () => {
  it("are in every language its offline voices speak, none of them left in English", () => {
    const languages = [...new Set(agentCatalog().voices.map((v) => v.language))];
    expect(languages).toEqual(["en", "es", "fr", "de", "pt", "it"]);
    const all = (language: string) => {
      const lines = spokenLines(language);
      return [lines.notHeard, lines.apology, ...lines.acknowledgements, lines.farewellOnLeaving("Ana"), lines.farewellAtTimeLimit("Ana")];
    };
    for (const language of languages) {
      const lines = spokenLines(language);
      if (language !== "en") expect(lines, language).not.toBe(ENGLISH);
      for (const line of all(language)) {
        expect(line.trim(), language).not.toBe("");
        // None left in English by a copy (languages may share a word: "Entendido." is Spanish and Portuguese).
        if (language !== "en") expect(all("en"), `${language}: "${line}"`).not.toContain(line);
      }
      expect(new Set(lines.acknowledgements).size).toBe(lines.acknowledgements.length);
      expect(lines.farewellOnLeaving("Ana")).toContain("Ana");
      expect(lines.farewellAtTimeLimit("Ana")).toContain("Ana");
    }
  });

  it("are a language's by its primary subtag, and English in a language it has none in", () => {
    expect(spokenLines("pt-BR")).toBe(spokenLines("pt"));
    expect(spokenLines("ES")).toBe(spokenLines("es"));
    expect(spokenLines("ja")).toBe(ENGLISH);
    expect(farewellOnLeaving("ana_maria", spokenLines("es"))).toBe("Adiós, ana maria. Vuelve pronto.");
  });

  it("acknowledge in the language, never twice the same in a row", () => {
    const spanish = spokenLines("es");
    let previous: string | undefined;
    for (let i = 0; i < 20; i++) {
      const next = acknowledgement(previous, () => (i % 7) / 7, spanish);
      expect(spanish.acknowledgements).toContain(next);
      expect(next).not.toBe(previous);
      previous = next;
    }
  });
});
