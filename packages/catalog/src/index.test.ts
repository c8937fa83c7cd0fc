import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentCatalog, defaultCatalogFile } from "./index.js";

const fileOf = (content: unknown) => {
  const file = join(mkdtempSync(join(tmpdir(), "catalog-")), "digital-humans.json");
  writeFileSync(file, JSON.stringify(content));
  return file;
};

describe("agentCatalog", () => {
  it("reads the default catalog: Ava's agent name, its voices with the default first, English heard", () => {
    const { agentNames, voices, hearingLanguages } = agentCatalog();
    expect(agentNames).toEqual(["ava"]);
    expect(voices[0]).toEqual({ id: "slt", language: "en", provider: "flite", providerVoice: "slt", model: undefined });
    expect(voices.filter((v) => v.provider === "espeak").map((v) => v.language)).toEqual(["en", "es", "fr", "de", "pt", "it"]);
    expect(hearingLanguages).toEqual(["en"]);
    expect(defaultCatalogFile).toMatch(/digital-humans\.json$/);
  });

  it("reads each agent name once from a file of the operator's, its voices the default catalog's when it has none", () => {
    const file = fileOf({ digital_humans: [{ agent_name: "maya" }, { agent_name: "leo" }, { agent_name: "maya" }] });
    expect(agentCatalog(file)).toEqual({ agentNames: ["maya", "leo"], voices: agentCatalog().voices, hearingLanguages: ["en"] });
  });

  it("takes an offline voice by its id alone, a provider's voice with its provider, voice and model", () => {
    const file = fileOf({
      digital_humans: [{ agent_name: "ava" }],
      hearing_languages: ["en", "es"],
      voices: [
        { id: "kal", language: "en" },
        { id: "nova", language: "es", provider: "openai", provider_voice: "nova", model: "tts-1" },
      ],
    });
    expect(agentCatalog(file)).toMatchObject({
      hearingLanguages: ["en", "es"],
      voices: [
        { id: "kal", provider: "flite", providerVoice: "kal16", model: undefined },
        { id: "nova", language: "es", provider: "openai", providerVoice: "nova", model: "tts-1" },
      ],
    });
  });

  it("refuses a voice whose provider it cannot tell, or a provider's voice without its id", () => {
    const voices = (voice: unknown) => fileOf({ digital_humans: [{ agent_name: "ava" }], voices: [voice] });
    expect(() => agentCatalog(voices({ id: "nova" }))).toThrow("voices[0].provider must be one of flite, espeak, openai");
    expect(() => agentCatalog(voices({ id: "x", provider: "polly", provider_voice: "Joanna" }))).toThrow("voices[0].provider must be");
    expect(() => agentCatalog(voices({ id: "slt", provider: "openai" }))).toThrow("voices[0].provider_voice is missing");
  });
});
