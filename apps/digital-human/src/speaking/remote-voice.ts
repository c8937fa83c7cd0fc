/** A Voice served by another process over HTTP (voice-server.ts, or any TTS that answers the same way). */
import type { Speech, Voice } from "./voice.js";

export class RemoteVoice implements Voice {
  constructor(private readonly url: string) {}

  async synthesize(text: string, voice?: string, signal?: AbortSignal): Promise<Speech> {
    const timeout = AbortSignal.timeout(10_000);
    const res = await fetch(`${this.url}/synthesize`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(voice === undefined ? { text } : { text, voice }),
      signal: signal === undefined ? timeout : AbortSignal.any([signal, timeout]),
    });
    if (!res.ok) throw new Error(`the voice answered ${res.status}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    // Copied into an aligned buffer: Int16Array needs an even offset.
    const samples = new Int16Array(bytes.byteLength / 2);
    new Uint8Array(samples.buffer).set(bytes.subarray(0, samples.byteLength));
    return { samples, sampleRate: Number(res.headers.get("X-Sample-Rate")) };
  }
}
