/**
 * eSpeak NG, compiled to WebAssembly (Echogarden's build, from npm): speech on the machine, with nothing
 * to install outside npm and nothing downloaded at run time. Robotic but clear, about 1% of a core per
 * second of speech once warm. Loading takes about a second, so a job process does it while it waits for
 * a job (agent.ts's prewarm).
 */
import createESpeak, { type ESpeakNGWorker } from "@echogarden/espeak-ng-emscripten";
import type { Speech, Voice } from "./voice.js";

export class ESpeakVoice implements Voice {
  private current: string;

  private constructor(
    private readonly engine: ESpeakNGWorker,
    voice: string,
  ) {
    this.current = voice;
  }

  static async load(options: { voice?: string; wordsPerMinute?: number; pitch?: number } = {}): Promise<ESpeakVoice> {
    const module = await createESpeak();
    const engine = new module.eSpeakNGWorker();
    engine.set_voice(options.voice ?? "en-us");
    engine.set_rate(options.wordsPerMinute ?? 165);
    engine.set_pitch(options.pitch ?? 50);
    const voice = new ESpeakVoice(engine, options.voice ?? "en-us");
    // The first utterances run cold WebAssembly (ten times slower); pay for it before anyone listens.
    await voice.synthesize("Hello.");
    await voice.synthesize("Warming up the voice.");
    return voice;
  }

  /** `text` in eSpeak's voice `name` (en-us, en-gb, ...), or the one it was loaded with. */
  async synthesize(text: string, name: string = this.current): Promise<Speech> {
    if (name !== this.current) {
      this.engine.set_voice(name);
      this.current = name;
    }
    const chunks: Int16Array[] = [];
    this.engine.synthesize(text, (samples) => {
      chunks.push(samples);
      return false;
    });
    const samples = new Int16Array(chunks.reduce((n, chunk) => n + chunk.length, 0));
    let offset = 0;
    for (const chunk of chunks) {
      samples.set(chunk, offset);
      offset += chunk.length;
    }
    return { samples, sampleRate: this.engine.get_samplerate() };
  }
}
