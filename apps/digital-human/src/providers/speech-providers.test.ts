import { agentCatalog, type CatalogVoice } from "@dhs/catalog";
import { initializeLogger } from "@livekit/agents";
import * as deepgram from "@livekit/agents-plugin-deepgram";
import * as elevenlabs from "@livekit/agents-plugin-elevenlabs";
import * as openai from "@livekit/agents-plugin-openai";
import { beforeAll, describe, expect, it } from "vitest";
import { readWorkerConfig } from "../worker/worker-config.js";
import { createSttPlugin, deepgramSocketRoot, hearingMismatch, offlineStandIn, providerOf, unspokenVoices } from "./speech-providers.js";

const voice = (id: string, provider: CatalogVoice["provider"], providerVoice: string, language = "en", model?: string): CatalogVoice => ({
  id,
  language,
  provider,
  providerVoice,
  model,
});
const NOVA = voice("nova", "openai", "nova", "en", "gpt-4o-mini-tts");
const LUCIA = voice("lucia", "elevenlabs", "21m00Tcm4TlvDq8ikWAM", "es");
const ANDROMEDA = voice("andromeda", "deepgram", "aura-2-andromeda-en");
const OFFLINE = agentCatalog().voices;

// The plugins log through the framework's logger.
beforeAll(() => initializeLogger({ pretty: false, level: "warn" }));

describe("the speech-to-text of DHS_STT_PROVIDER", () => {
  it("is none of a plugin's for the offline default, OpenAI's on its transcriptions endpoint, Deepgram's streaming", () => {
    expect(createSttPlugin(readWorkerConfig({}), "en")).toBeUndefined();
    const whisper = createSttPlugin(readWorkerConfig({ DHS_STT_PROVIDER: "openai", DHS_STT_BASE_URL: "http://127.0.0.1:9/v1" }), "es-MX");
    expect(whisper).toBeInstanceOf(openai.STT);
    // The VAD cuts its turns: one request per turn, no realtime socket.
    expect([whisper?.capabilities.streaming, (whisper as openai.STT).model]).toEqual([false, "whisper-1"]);
    const nova = createSttPlugin(
      readWorkerConfig({
        DHS_STT_PROVIDER: "deepgram",
        DHS_STT_API_KEY: "dg",
        DHS_STT_MODEL: "nova-2",
        DHS_STT_BASE_URL: "http://127.0.0.1:9/v1",
      }),
      "es",
    );
    expect(nova).toBeInstanceOf(deepgram.STT);
    // However the operator wrote Deepgram's root, its plugin gets the socket's (it adds /v1/listen).
    expect([deepgramSocketRoot("https://api.deepgram.com/v1"), deepgramSocketRoot("wss://dg.example.com")]).toEqual([
      "wss://api.deepgram.com",
      "wss://dg.example.com",
    ]);
    expect([nova?.capabilities.streaming, nova?.model]).toEqual([true, "nova-2"]);
  });

  it("refuses a catalog asking PocketSphinx to hear what it cannot, and takes any with a provider", () => {
    expect(hearingMismatch(readWorkerConfig({}), ["en", "en-GB"])).toBeUndefined();
    expect(hearingMismatch(readWorkerConfig({}), ["en", "es"])).toBe(
      "DIGITAL_HUMANS_FILE's hearing_languages list es, which DHS_STT_PROVIDER=pocketsphinx does not hear (it hears en): set DHS_STT_PROVIDER to a provider that does, or remove them",
    );
    expect(hearingMismatch(readWorkerConfig({ DHS_STT_PROVIDER: "deepgram", DHS_STT_API_KEY: "dg" }), ["es", "ja"])).toBeUndefined();
  });
});

describe("a voice's provider", () => {
  const all = readWorkerConfig({
    DHS_TTS_OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    DHS_TTS_ELEVENLABS_API_KEY: "xi",
    DHS_TTS_DEEPGRAM_API_KEY: "dg",
  });

  it("is built from the worker's settings for that provider, with the voice's own id and model", () => {
    const build = (v: CatalogVoice) => {
      const found = providerOf(v, all);
      if (!("tts" in found)) throw new Error(`no TTS for ${v.id}`);
      return found.tts();
    };
    const spoken = build(NOVA);
    expect(spoken).toBeInstanceOf(openai.TTS);
    expect([spoken.sampleRate, (spoken as openai.TTS).model]).toEqual([24_000, "gpt-4o-mini-tts"]);
    expect(build(LUCIA)).toBeInstanceOf(elevenlabs.TTS);
    const aura = build(ANDROMEDA);
    expect([aura instanceof deepgram.TTS, aura.model]).toEqual([true, "aura-2-andromeda-en"]);
    expect(providerOf(OFFLINE[0] as CatalogVoice, all)).toEqual({ offline: true });
  });

  it("is missing, said once at start with why, when the worker has no settings for it; the offline voice of its language speaks it", () => {
    expect(unspokenVoices([...OFFLINE, NOVA, LUCIA, ANDROMEDA], readWorkerConfig({}))).toEqual([
      { id: "nova", why: "openai: DHS_TTS_OPENAI_BASE_URL or DHS_TTS_OPENAI_API_KEY is not set" },
      { id: "lucia", why: "elevenlabs: DHS_TTS_ELEVENLABS_API_KEY is not set" },
      { id: "andromeda", why: "deepgram: DHS_TTS_DEEPGRAM_API_KEY is not set" },
    ]);
    expect(unspokenVoices([...OFFLINE, NOVA, LUCIA, ANDROMEDA], all)).toEqual([]);
    expect(offlineStandIn(LUCIA, OFFLINE).id).toBe("espeak-es");
    expect(offlineStandIn(NOVA, OFFLINE).id).toBe("slt");
    expect(offlineStandIn(voice("ines", "openai", "shimmer", "pt-BR"), OFFLINE).id).toBe("espeak-pt");
    expect(offlineStandIn(voice("yuki", "openai", "shimmer", "ja"), OFFLINE).id).toBe("slt");
    expect(offlineStandIn(OFFLINE[1] as CatalogVoice, OFFLINE).id).toBe("rms");
  });
});
