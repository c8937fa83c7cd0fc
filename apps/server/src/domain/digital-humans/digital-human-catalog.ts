/**
 * The deployment's stock digital humans (DIGITAL_HUMANS_FILE, contract guide "Digital humans"): which
 * LiveKit agent to dispatch for each (its appearance), the persona it has unless the file says more, which
 * accounts may use each and in which modes (live keys' sessions, test keys'). An entry limited to some
 * accounts or modes does not exist for the others. The first entry an account may use in a mode is its
 * default there. With them, the voices the deployment offers. Replaced as a whole when the operator's
 * files are reloaded.
 */

import type { components } from "@dhs/contract";
import type { Mode } from "../accounts/api-keys.js";

/** A stock digital human as the operator's file describes it. */
export interface DigitalHuman {
  id: string;
  name: string;
  agent_name: string;
  description?: string | null;
  /** The accounts that may use it; every account when absent. */
  accounts?: readonly string[] | undefined;
  /** The modes whose sessions may get it; both when absent. */
  modes?: readonly Mode[] | undefined;
  /** Its persona; what is absent is the deployment's default (persona.ts). */
  instructions?: string | null | undefined;
  greeting?: string | null | undefined;
  voice?: string | undefined;
  language?: string | undefined;
  llm_model?: string | null | undefined;
  max_session_duration_s?: number | null | undefined;
}

export type VoiceProvider = components["schemas"]["VoiceProvider"];

/** A voice the deployment offers (the contract's Voice, less `default`: the first is the default). */
export interface Voice {
  id: string;
  name: string;
  language: string;
  description: string | null;
  provider: VoiceProvider;
  provider_voice: string;
  model: string | null;
}

/** What the offline speech recognition (PocketSphinx, the reference worker's default) hears. */
export const OFFLINE_HEARING: readonly [string, ...string[]] = ["en"];

export class DigitalHumanCatalog {
  private entries: readonly DigitalHuman[] = [];
  private byId = new Map<string, DigitalHuman>();
  private voiceList: readonly Voice[] = [];
  private heard: readonly string[] = OFFLINE_HEARING;

  /** @param hearingLanguages the languages the deployment's speech recognition hears (DIGITAL_HUMANS_FILE's `hearing_languages`) */
  constructor(
    entries: readonly [DigitalHuman, ...DigitalHuman[]],
    voices: readonly [Voice, ...Voice[]],
    hearingLanguages: readonly string[] = OFFLINE_HEARING,
  ) {
    this.replace(entries, voices, hearingLanguages);
  }

  replace(
    entries: readonly [DigitalHuman, ...DigitalHuman[]],
    voices: readonly [Voice, ...Voice[]],
    hearingLanguages: readonly string[] = OFFLINE_HEARING,
  ): void {
    this.entries = entries;
    this.byId = new Map(entries.map((entry) => [entry.id.toLowerCase(), entry]));
    this.voiceList = voices;
    this.heard = hearingLanguages;
  }

  /** The languages the deployment hears, as the operator listed them. */
  hearingLanguages(): readonly string[] {
    return this.heard;
  }

  /** Whether the deployment hears `language`: listed as it is, or by its primary subtag (`en` hears `en-GB`). */
  hears(language: string): boolean {
    const primary = language.toLowerCase().split("-")[0];
    return this.heard.some((heard) => heard.toLowerCase() === language.toLowerCase() || heard.toLowerCase() === primary);
  }

  /** Every entry the account may use in a mode, in the catalog's order. */
  forAccount(accountId: string, mode: Mode = "live"): DigitalHuman[] {
    return this.entries.filter((entry) => mayUse(entry, accountId, mode));
  }

  /** The digital human with this id (or the default when none is given), if the account may use it in the mode. */
  resolve(id: string | undefined, accountId: string, mode: Mode = "live"): DigitalHuman | undefined {
    if (id === undefined) return this.forAccount(accountId, mode)[0];
    const entry = this.byId.get(id.toLowerCase());
    return entry && mayUse(entry, accountId, mode) ? entry : undefined;
  }

  /** The entry with this id, whoever may use it (a session that has one keeps it). */
  byIdAnyAccount(id: string): DigitalHuman | undefined {
    return this.byId.get(id.toLowerCase());
  }

  /** The voices, the default first. */
  voices(): readonly Voice[] {
    return this.voiceList;
  }

  voice(id: string): Voice | undefined {
    return this.voiceList.find((voice) => voice.id === id);
  }

  /** The default voice of a language (the first of it), or the default voice when none is asked for. */
  defaultVoice(language?: string): Voice | undefined {
    return language === undefined ? this.voiceList[0] : this.voiceList.find((voice) => voice.language === language);
  }
}

function mayUse(entry: DigitalHuman, accountId: string, mode: Mode): boolean {
  return (entry.accounts === undefined || entry.accounts.includes(accountId)) && (entry.modes === undefined || entry.modes.includes(mode));
}
