/**
 * The voices this worker speaks, by the ids the deployment's catalog lists (DIGITAL_HUMANS_FILE's
 * `voices`, which the service offers customers: contract guide, "Digital humans"): Flite's where the
 * `flite` program is installed, eSpeak NG's always (it ships in npm). A voice it cannot speak (Flite not
 * installed, or an id it does not know) is spoken in its default instead, and reported once, so a
 * session never goes silent for a voice.
 */
import type { Speech, Voice } from "./voice.js";

/** The catalog's voice ids and the engine voice behind each. */
const FLITE_VOICES: Readonly<Record<string, string>> = { slt: "slt", rms: "rms", awb: "awb", kal: "kal16" };
const ESPEAK_VOICES: Readonly<Record<string, string>> = { "espeak-en-us": "en-us" };

/** Whether a worker with (or without) Flite speaks `voice` as itself, and why not. */
export function speaks(voice: string, fliteInstalled: boolean): { yes: true } | { yes: false; why: string } {
  if (voice in ESPEAK_VOICES) return { yes: true };
  if (voice in FLITE_VOICES) return fliteInstalled ? { yes: true } : { yes: false, why: "flite is not installed" };
  return { yes: false, why: "this worker knows no voice of that id" };
}

export interface Engines {
  flite?: { synthesize(text: string, name: string): Promise<Speech> } | undefined;
  espeak: { synthesize(text: string, name: string): Promise<Speech> };
}

export class VoiceLibrary implements Voice {
  private readonly reported = new Set<string>();

  constructor(
    private readonly engines: Engines,
    /** The id spoken when none is named: the catalog's first. */
    private readonly defaultVoice: string,
    private readonly onFallback: (voice: string, why: string) => void = () => {},
  ) {}

  synthesize(text: string, voice: string = this.defaultVoice): Promise<Speech> {
    const espeak = ESPEAK_VOICES[voice];
    if (espeak !== undefined) return this.engines.espeak.synthesize(text, espeak);
    const flite = FLITE_VOICES[voice];
    if (flite !== undefined && this.engines.flite) return this.engines.flite.synthesize(text, flite);
    const can = speaks(voice, this.engines.flite !== undefined);
    if (!can.yes && !this.reported.has(voice)) {
      this.reported.add(voice);
      this.onFallback(voice, can.why);
    }
    return voice === this.defaultVoice || !speaks(this.defaultVoice, this.engines.flite !== undefined).yes
      ? this.engines.espeak.synthesize(text, "en-us")
      : this.synthesize(text, this.defaultVoice);
  }
}
