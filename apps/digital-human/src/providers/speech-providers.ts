/**
 * The one factory of the digital human's ears and voices, from the worker's declared settings
 * (worker/worker-config.ts) and the catalog's voices (DIGITAL_HUMANS_FILE): which speech-to-text hears a
 * session in its language (DHS_STT_PROVIDER), and which TTS speaks each voice (a voice's `provider`, with
 * the settings of that provider the worker has). The offline engines are the default of both: PocketSphinx
 * hears English, Flite and eSpeak NG speak; a voice whose provider the worker has no settings for is
 * spoken by the offline voice of its language (said once at start, `unspokenVoices`), and a provider's
 * voice always has the offline one behind it (fallback-tts.ts).
 *
 * The plugins are LiveKit's own, each at the version released for the agents framework we run (1.9.0):
 * `@livekit/agents-plugin-openai` (its STT on the transcriptions endpoint, `useRealtime: false`, and its
 * TTS), `@livekit/agents-plugin-deepgram` (STT on `/v1/listen`, TTS on `/v1/speak`) and
 * `@livekit/agents-plugin-elevenlabs` (TTS).
 */
import type { CatalogVoice } from "@dhs/catalog";
import type { stt, tts } from "@livekit/agents";
import * as deepgram from "@livekit/agents-plugin-deepgram";
import * as elevenlabs from "@livekit/agents-plugin-elevenlabs";
import * as openai from "@livekit/agents-plugin-openai";
import type { WorkerConfig } from "../worker/worker-config.js";

export type SpeechConfig = Pick<
  WorkerConfig,
  | "DHS_STT_PROVIDER"
  | "DHS_STT_BASE_URL"
  | "DHS_STT_API_KEY"
  | "DHS_STT_MODEL"
  | "DHS_TTS_OPENAI_BASE_URL"
  | "DHS_TTS_OPENAI_API_KEY"
  | "DHS_TTS_ELEVENLABS_API_KEY"
  | "DHS_TTS_ELEVENLABS_BASE_URL"
  | "DHS_TTS_DEEPGRAM_API_KEY"
  | "DHS_TTS_DEEPGRAM_BASE_URL"
>;

/** The languages each speech-to-text hears; a provider's many are the operator's to list in the catalog. */
export function hearsOnly(config: SpeechConfig): readonly string[] | undefined {
  return config.DHS_STT_PROVIDER === "pocketsphinx" ? ["en"] : undefined;
}

/**
 * Why the catalog asks the workers to hear what their speech-to-text cannot, or undefined: PocketSphinx
 * hears English only, so a catalog listing more in `hearing_languages` would take digital humans the
 * worker would mishear.
 */
export function hearingMismatch(config: SpeechConfig, hearingLanguages: readonly string[]): string | undefined {
  const only = hearsOnly(config);
  if (only === undefined) return undefined;
  const unheard = hearingLanguages.filter((language) => !only.includes(language.toLowerCase().split("-")[0] ?? ""));
  if (unheard.length === 0) return undefined;
  return `DIGITAL_HUMANS_FILE's hearing_languages list ${unheard.join(", ")}, which DHS_STT_PROVIDER=${config.DHS_STT_PROVIDER} does not hear (it hears ${only.join(", ")}): set DHS_STT_PROVIDER to a provider that does, or remove them`;
}

/** The provider's speech-to-text plugin for a session in `language`; undefined for the offline default. */
export function createSttPlugin(config: SpeechConfig, language: string): stt.STT | undefined {
  const base = config.DHS_STT_BASE_URL;
  switch (config.DHS_STT_PROVIDER) {
    case "pocketsphinx":
      return undefined;
    case "openai":
      return new openai.STT({
        ...(base === undefined ? {} : { baseURL: base }),
        // The plugin refuses to start without a key; a compatible server that takes none ignores it.
        apiKey: config.DHS_STT_API_KEY ?? "none",
        model: config.DHS_STT_MODEL ?? "whisper-1",
        language: baseLanguage(language),
        useRealtime: false,
      });
    case "deepgram":
      return new deepgram.STT({
        ...(base === undefined ? {} : { baseUrl: deepgramSocketRoot(base) }),
        apiKey: config.DHS_STT_API_KEY ?? "",
        model: config.DHS_STT_MODEL ?? "nova-3",
        language,
        // The session's VAD ends the turn, and each turn is a stream of its own (plugin-transcriber.ts).
        interimResults: false,
      });
  }
}

/** What a voice needs of the worker's settings, or why the worker cannot speak it through its provider. */
export function providerOf(voice: CatalogVoice, config: SpeechConfig): { tts: () => tts.TTS } | { missing: string } | { offline: true } {
  switch (voice.provider) {
    case "flite":
    case "espeak":
      return { offline: true };
    case "openai": {
      const base = config.DHS_TTS_OPENAI_BASE_URL;
      const key = config.DHS_TTS_OPENAI_API_KEY;
      if (base === undefined && key === undefined) return { missing: "DHS_TTS_OPENAI_BASE_URL or DHS_TTS_OPENAI_API_KEY is not set" };
      return {
        tts: () =>
          new openai.TTS({
            ...(base === undefined ? {} : { baseURL: base }),
            apiKey: key ?? "none",
            voice: voice.providerVoice as openai.TTSVoices,
            model: voice.model ?? "tts-1",
          }),
      };
    }
    case "elevenlabs": {
      const key = config.DHS_TTS_ELEVENLABS_API_KEY;
      if (key === undefined) return { missing: "DHS_TTS_ELEVENLABS_API_KEY is not set" };
      const base = config.DHS_TTS_ELEVENLABS_BASE_URL;
      return {
        tts: () =>
          new elevenlabs.TTS({
            apiKey: key,
            voiceId: voice.providerVoice,
            ...(voice.model === undefined ? {} : { model: voice.model }),
            ...(base === undefined ? {} : { baseURL: base }),
            language: baseLanguage(voice.language),
          }),
      };
    }
    case "deepgram": {
      const key = config.DHS_TTS_DEEPGRAM_API_KEY;
      if (key === undefined) return { missing: "DHS_TTS_DEEPGRAM_API_KEY is not set" };
      const base = config.DHS_TTS_DEEPGRAM_BASE_URL;
      // An Aura voice is a model of its own (aura-2-andromeda-en).
      return { tts: () => new deepgram.TTS({ apiKey: key, model: voice.providerVoice, ...(base === undefined ? {} : { baseUrl: base }) }) };
    }
  }
}

/** The catalog's voices this worker speaks through no provider, with why: said once at its start. */
export function unspokenVoices(voices: readonly CatalogVoice[], config: SpeechConfig): { id: string; why: string }[] {
  return voices.flatMap((voice) => {
    const provider = providerOf(voice, config);
    return "missing" in provider ? [{ id: voice.id, why: `${voice.provider}: ${provider.missing}` }] : [];
  });
}

/**
 * The offline voice that stands in for `voice`: itself when it is one, else the first offline voice of
 * its language, else the catalog's default (the first).
 */
export function offlineStandIn(voice: CatalogVoice, voices: readonly CatalogVoice[]): CatalogVoice {
  const offline = voices.filter((v) => v.provider === "flite" || v.provider === "espeak");
  if (offline.includes(voice)) return voice;
  return (
    offline.find((v) => v.language === voice.language) ??
    offline.find((v) => baseLanguage(v.language) === baseLanguage(voice.language)) ??
    offline[0] ??
    voice
  );
}

/**
 * Deepgram's root as its plugin's streaming socket takes it: `wss://` (an operator's `https://` too) and no
 * `/v1`, which the plugin adds (`https://api.deepgram.com/v1` -> `wss://api.deepgram.com`).
 */
export function deepgramSocketRoot(url: string): string {
  return url.replace(/\/v1\/?$/, "").replace(/^http/, "ws");
}

/** `pt-BR` -> `pt`: what the plugins' `language` takes. */
function baseLanguage(tag: string): string {
  return tag.toLowerCase().split("-")[0] ?? tag;
}
