/**
 * What the agent asks of a voice: text in, mono 16-bit speech out. A team that brings a cloud TTS
 * implements this; the speaker plays whatever it returns and the mouth follows it.
 */
export interface Speech {
  samples: Int16Array;
  sampleRate: number;
}

export interface Voice {
  synthesize(text: string): Promise<Speech>;
}
