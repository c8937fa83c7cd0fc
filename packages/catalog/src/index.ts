/**
 * The deployment's default catalog (digital-humans.json): one stock digital human, Ava, the voices the
 * reference worker speaks offline (Flite's in English, eSpeak NG's in six languages) and what its
 * offline speech recognition hears (English). The service reads it whole when DIGITAL_HUMANS_FILE names
 * no file of its own (apps/server/src/config/operator-files.ts checks it); the worker reads from it, or
 * from that file, only the agent names to register, the voices to speak and the languages it must hear
 * (agentCatalog). One file for both, shipped with each of them.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Where the default catalog is, wherever this package is installed. */
export const defaultCatalogFile = fileURLToPath(new URL("../digital-humans.json", import.meta.url));

/** Who speaks a voice: the offline engines on the worker, or a speech provider the operator has an account with. */
export const VOICE_PROVIDERS = ["flite", "espeak", "openai", "elevenlabs", "deepgram"] as const;
export type VoiceProvider = (typeof VOICE_PROVIDERS)[number];

/**
 * The offline voices of catalogs written before voices named their provider, by their ids: a file
 * that lists `slt` alone still means Flite's SLT.
 */
export const OFFLINE_VOICE_IDS: Readonly<Record<string, { provider: VoiceProvider; provider_voice: string }>> = {
  slt: { provider: "flite", provider_voice: "slt" },
  rms: { provider: "flite", provider_voice: "rms" },
  awb: { provider: "flite", provider_voice: "awb" },
  kal: { provider: "flite", provider_voice: "kal16" },
  "espeak-en-us": { provider: "espeak", provider_voice: "en-us" },
};

/** What the offline speech recognition (PocketSphinx's US English model) hears. */
export const OFFLINE_HEARING: readonly [string, ...string[]] = ["en"];

/** A voice of the catalog as the worker speaks it. */
export interface CatalogVoice {
  id: string;
  language: string;
  provider: VoiceProvider;
  /** The voice as its provider names it. */
  providerVoice: string;
  /** The provider's model; undefined: the provider's default. */
  model: string | undefined;
}

/** What the worker needs of a catalog: the LiveKit agent names to register, the voices it is to speak. */
export interface AgentCatalog {
  agentNames: string[];
  /** The voices, the default first: the file's, or the default catalog's when the file has none (as the service reads it). */
  voices: CatalogVoice[];
  /** The languages the workers must hear (the file's `hearing_languages`; English without it). */
  hearingLanguages: string[];
}

type FileVoice = { id: string; language?: string; provider?: string; provider_voice?: string; model?: string | null };
type CatalogFile = { digital_humans: { agent_name: string }[]; voices?: FileVoice[]; hearing_languages?: string[] };

const read = (file: string) => JSON.parse(readFileSync(file, "utf8")) as CatalogFile;

export function agentCatalog(file: string = defaultCatalogFile): AgentCatalog {
  const catalog = read(file);
  const voices = catalog.voices ?? read(defaultCatalogFile).voices ?? [];
  return {
    agentNames: [...new Set(catalog.digital_humans.map((d) => d.agent_name))],
    voices: voices.map((voice, i) => catalogVoice(voice, i)),
    hearingLanguages: catalog.hearing_languages ?? [...OFFLINE_HEARING],
  };
}

/** A voice with every field, or an Error naming the entry (the service refuses the same file at its start). */
function catalogVoice(voice: FileVoice, i: number): CatalogVoice {
  const known = OFFLINE_VOICE_IDS[voice.id];
  const provider = voice.provider ?? known?.provider;
  if (!VOICE_PROVIDERS.includes(provider as VoiceProvider)) {
    throw new Error(`DIGITAL_HUMANS_FILE: voices[${i}].provider must be one of ${VOICE_PROVIDERS.join(", ")}`);
  }
  const providerVoice = voice.provider_voice ?? (known !== undefined && provider === known.provider ? known.provider_voice : undefined);
  if (providerVoice === undefined) throw new Error(`DIGITAL_HUMANS_FILE: voices[${i}].provider_voice is missing`);
  return {
    id: voice.id,
    language: voice.language ?? "en",
    provider: provider as VoiceProvider,
    providerVoice,
    model: voice.model ?? undefined,
  };
}
