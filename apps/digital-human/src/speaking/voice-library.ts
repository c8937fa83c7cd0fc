/**
 * The offline voices this worker speaks, by the ids the deployment's catalog lists (DIGITAL_HUMANS_FILE's
 * `voices`, which the service offers customers: contract guide, "Digital humans"), each by its engine's
 * own name (`provider_voice`): Flite's where the `flite` program is installed, eSpeak NG's always (it
 * ships in npm). A voice it cannot speak (Flite not installed, a provider's voice, an id it does not know)
 * is spoken by the offline voice of its language, else the default, and reported once, so a session
 * never goes silent for a voice.
 */
import { type CatalogVoice, OFFLINE_VOICE_IDS } from "@dhs/catalog";
import type { Speech, Voice } from "./voice.js";

type OfflineVoice = Pick<CatalogVoice, "id" | "language" | "provider" | "providerVoice">;

/** The offline voices of catalogs that name no provider, by their ids. */
const KNOWN: OfflineVoice[] = Object.entries(OFFLINE_VOICE_IDS).map(([id, v]) => ({
  id,
  language: "en",
  provider: v.provider,
  providerVoice: v.provider_voice,
}));

/** Whether a worker with (or without) Flite speaks `voice` as itself, and why not. */
export function speaks(voice: OfflineVoice | undefined, fliteInstalled: boolean): { yes: true } | { yes: false; why: string } {
  if (voice === undefined) return { yes: false, why: "this worker knows no voice of that id" };
  if (voice.provider === "espeak") return { yes: true };
  if (voice.provider === "flite") return fliteInstalled ? { yes: true } : { yes: false, why: "flite is not installed" };
  return { yes: false, why: `${voice.provider} speaks it, not this worker's offline voices` };
}

export interface Engines {
  flite?: { synthesize(text: string, name: string): Promise<Speech> } | undefined;
  espeak: { synthesize(text: string, name: string): Promise<Speech> };
}

export class VoiceLibrary implements Voice {
  private readonly reported = new Set<string>();
  private readonly voices: OfflineVoice[];

  constructor(
    private readonly engines: Engines,
    /** The id spoken when none is named: the catalog's first. */
    private readonly defaultVoice: string,
    private readonly onFallback: (voice: string, why: string) => void = () => {},
    catalog: readonly OfflineVoice[] = KNOWN,
  ) {
    this.voices = [...catalog, ...KNOWN.filter((known) => !catalog.some((v) => v.id === known.id))];
  }

  synthesize(text: string, id: string = this.defaultVoice): Promise<Speech> {
    const voice = this.voices.find((v) => v.id === id);
    const can = speaks(voice, this.engines.flite !== undefined);
    if (can.yes) return this.engine(voice as OfflineVoice).synthesize(text, (voice as OfflineVoice).providerVoice);
    if (!this.reported.has(id)) {
      this.reported.add(id);
      this.onFallback(id, can.why);
    }
    const standIn = this.voices.find(
      (v) => v.id !== id && v.language === voice?.language && speaks(v, this.engines.flite !== undefined).yes,
    );
    if (standIn) return this.synthesize(text, standIn.id);
    return id === this.defaultVoice ||
      !speaks(
        this.voices.find((v) => v.id === this.defaultVoice),
        this.engines.flite !== undefined,
      ).yes
      ? this.engines.espeak.synthesize(text, "en-us")
      : this.synthesize(text, this.defaultVoice);
  }

  private engine(voice: OfflineVoice): NonNullable<Engines["flite"]> {
    return voice.provider === "flite" && this.engines.flite ? this.engines.flite : this.engines.espeak;
  }
}
