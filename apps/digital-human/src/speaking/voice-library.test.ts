import { agentCatalog } from "@dhs/catalog";
import { describe, expect, it, vi } from "vitest";
import type { Speech } from "./voice.js";
import { speaks, VoiceLibrary } from "./voice-library.js";

/** An engine that answers with the voice name it was asked for, as its sample rate's digits' length. */
const engine = (label: string, asked: string[]) => ({
  synthesize: async (text: string, name: string): Promise<Speech> => {
    asked.push(`${label}:${name}:${text}`);
    return { samples: new Int16Array(1), sampleRate: 16_000 };
  },
});

describe("VoiceLibrary", () => {
  it("speaks each catalog voice with its engine: Flite's by their Flite names, eSpeak's by its", async () => {
    const asked: string[] = [];
    const library = new VoiceLibrary({ flite: engine("flite", asked), espeak: engine("espeak", asked) }, "slt");
    await library.synthesize("a", "slt");
    await library.synthesize("b", "kal");
    await library.synthesize("c", "espeak-en-us");
    await library.synthesize("d");
    expect(asked).toEqual(["flite:slt:a", "flite:kal16:b", "espeak:en-us:c", "flite:slt:d"]);
  });

  it("speaks a voice it cannot in the default one, and says so once per voice", async () => {
    const asked: string[] = [];
    const fallback = vi.fn();
    const library = new VoiceLibrary({ flite: engine("flite", asked), espeak: engine("espeak", asked) }, "slt", fallback);
    await library.synthesize("a", "nope");
    await library.synthesize("b", "nope");
    expect(asked).toEqual(["flite:slt:a", "flite:slt:b"]);
    expect(fallback).toHaveBeenCalledOnce();
    expect(fallback).toHaveBeenCalledWith("nope", "this worker knows no voice of that id");
  });

  it("without Flite, speaks its voices and the default in eSpeak", async () => {
    const asked: string[] = [];
    const fallback = vi.fn();
    const library = new VoiceLibrary({ espeak: engine("espeak", asked) }, "slt", fallback);
    await library.synthesize("a", "rms");
    await library.synthesize("b");
    expect(asked).toEqual(["espeak:en-us:a", "espeak:en-us:b"]);
    expect(fallback).toHaveBeenCalledWith("rms", "flite is not installed");
    const slt = { id: "slt", language: "en", provider: "flite", providerVoice: "slt" } as const;
    expect([speaks(slt, false), speaks(slt, true), speaks({ ...slt, provider: "espeak" }, false)]).toEqual([
      { yes: false, why: "flite is not installed" },
      { yes: true },
      { yes: true },
    ]);
  });

  it("speaks the catalog's eSpeak voices in their languages, and a provider's voice it cannot in the offline voice of its language", async () => {
    const asked: string[] = [];
    const fallback = vi.fn();
    const catalog = agentCatalog().voices;
    const nova = { id: "nova", language: "es", provider: "openai", providerVoice: "nova" } as const;
    const library = new VoiceLibrary({ flite: engine("flite", asked), espeak: engine("espeak", asked) }, "slt", fallback, [
      ...catalog,
      nova,
    ]);
    await library.synthesize("hola", "espeak-es");
    await library.synthesize("bonjour", "espeak-fr");
    await library.synthesize("buenos días", "nova");
    expect(asked).toEqual(["espeak:es:hola", "espeak:fr:bonjour", "espeak:es:buenos días"]);
    expect(fallback).toHaveBeenCalledExactlyOnceWith("nova", "openai speaks it, not this worker's offline voices");
  });
});
