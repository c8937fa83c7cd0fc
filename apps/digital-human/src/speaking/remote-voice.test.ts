import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RemoteVoice } from "./remote-voice.js";
import type { Speech, Voice } from "./voice.js";
import { startVoiceServer } from "./voice-server.js";

/** A voice whose speech is known sample for sample. */
class CountingVoice implements Voice {
  async synthesize(text: string): Promise<Speech> {
    return { samples: Int16Array.from({ length: text.length * 100 }, (_, i) => (i % 2 === 0 ? i : -i) % 32_000), sampleRate: 22_050 };
  }
}

let server: Awaited<ReturnType<typeof startVoiceServer>>;
beforeAll(async () => {
  server = await startVoiceServer(new CountingVoice());
});
afterAll(() => server.server.close());

describe("the worker's shared voice over loopback", () => {
  it("gives a job exactly the speech the voice made, at its sample rate", async () => {
    const speech = await new RemoteVoice(server.url).synthesize("Hello grace!");
    expect(speech.sampleRate).toBe(22_050);
    expect(speech.samples).toEqual((await new CountingVoice().synthesize("Hello grace!")).samples);
  });

  it("refuses an empty or oversized text, and says so to the job", async () => {
    await expect(new RemoteVoice(server.url).synthesize("")).rejects.toThrow("the voice answered 400");
    await expect(new RemoteVoice(server.url).synthesize("a".repeat(2001))).rejects.toThrow("the voice answered 400");
    expect((await fetch(`${server.url}/other`, { method: "POST" })).status).toBe(404);
  });
});
