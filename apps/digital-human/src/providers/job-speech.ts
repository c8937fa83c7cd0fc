/**
 * A session's ears and voice, made when its job starts (speech-providers.ts decides which): the
 * Transcriber its turns go to (PocketSphinx, or a provider's plugin in the session's language) and the
 * TTS its persona's voice is spoken by (the offline voice, or a provider's with the offline voice of the
 * same language behind it).
 */
import type { CatalogVoice } from "@dhs/catalog";
import type { tts } from "@livekit/agents";
import type { Transcriber } from "../hearing/transcriber.js";
import type { Voice } from "../speaking/voice.js";
import { VoiceTTS } from "../speaking/voice-tts.js";
import { FallbackTTS } from "./fallback-tts.js";
import { PluginTranscriber } from "./plugin-transcriber.js";
import { createSttPlugin, offlineStandIn, providerOf, type SpeechConfig } from "./speech-providers.js";

export interface JobSpeech {
  transcriber: Transcriber | undefined;
  tts: tts.TTS;
  /** What hears and speaks, for the job's first log line. */
  described: { stt: string; voice: string; voice_provider: string; spoken_by: string };
}

export interface JobSpeechInputs {
  config: SpeechConfig & { DHS_TTS_TIMEOUT_S: number };
  /** The catalog's voices, the default first. */
  voices: readonly CatalogVoice[];
  persona: { voice: string | undefined; language: string };
  /** The offline voices (the worker's voice server) and the offline recognizer, where installed. */
  offlineVoice: Voice;
  offlineTranscriber: Transcriber | undefined;
  sampleRate: number;
  /** A provider's voice failed mid-reply: the offline voice speaks the rest (logged and counted by the job). */
  onVoiceFallback(why: string): void;
}

export function jobSpeech(inputs: JobSpeechInputs): JobSpeech {
  const { config, voices, persona } = inputs;
  const plugin = createSttPlugin(config, persona.language);
  const transcriber = plugin === undefined ? inputs.offlineTranscriber : new PluginTranscriber(plugin);
  const voice = voices.find((v) => v.id === persona.voice) ?? voices[0];
  const offline = (id: string | undefined) => new VoiceTTS(inputs.offlineVoice, id, inputs.sampleRate);
  const stt = config.DHS_STT_PROVIDER;
  if (voice === undefined)
    return {
      transcriber,
      tts: offline(persona.voice),
      described: { stt, voice: persona.voice ?? "", voice_provider: "", spoken_by: "offline" },
    };
  const standIn = offlineStandIn(voice, voices);
  const provider = providerOf(voice, config);
  const described = { stt, voice: voice.id, voice_provider: voice.provider };
  if ("offline" in provider) return { transcriber, tts: offline(voice.id), described: { ...described, spoken_by: voice.id } };
  // Said once by the worker at its start (unspokenVoices): spoken by the offline voice of its language.
  if ("missing" in provider) return { transcriber, tts: offline(standIn.id), described: { ...described, spoken_by: standIn.id } };
  const tts = new FallbackTTS(provider.tts(), offline(standIn.id), inputs.sampleRate, {
    timeoutMs: config.DHS_TTS_TIMEOUT_S * 1000,
    onFallback: inputs.onVoiceFallback,
  });
  return { transcriber, tts, described: { ...described, spoken_by: voice.provider } };
}
