/**
 * What the agent asks of a voice: text in, mono 16-bit speech out, in one of the deployment's voices (the
 * persona's `voice`, contract guide "Digital humans"; the voice's own default when none is named). A team
 * that brings a cloud TTS implements this; the speaker plays whatever it returns and the mouth follows it.
 */
export interface Speech {
  samples: Int16Array;
  sampleRate: number;
}

export interface Voice {
  /** `signal` aborts a synthesis no longer wanted (the reply it belonged to was cut off). */
  synthesize(text: string, voice?: string, signal?: AbortSignal): Promise<Speech>;
}
