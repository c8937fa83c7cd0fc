/**
 * What the speech stand-ins (each a provider's wire protocol on loopback) hear and speak with: engines
 * given by the test, the offline ones in practice (PocketSphinx and Flite through the digital human's own
 * modules), so that real words go both ways and a test checks what was said, not that bytes moved.
 */

/** Mono 16-bit PCM. */
export interface Speech {
  samples: Int16Array;
  sampleRate: number;
}

export interface SpeechEngines {
  /** The words of `speech`, lower case; `language` as the request named it (undefined: none named). */
  transcribe(speech: Speech, language: string | undefined): Promise<string>;
  /** `text` spoken; `voice` is the provider's voice id the request named. */
  synthesize(text: string, voice: string | undefined): Promise<Speech>;
}

/**
 * How a stand-in misbehaves, set by the test at any time: `refuse` answers an error status (HTTP 503, or a
 * websocket refused at its upgrade), `hang` accepts and never answers, `midway` starts its answer (audio
 * or a transcript) and breaks the connection before the end.
 */
export type StandInFault = "none" | "refuse" | "hang" | "midway";
