/**
 * The engines the testkit's speech stand-ins hear and speak with (the digital human's tests, the
 * end-to-end tier, `pnpm --filter @dhs/digital-human speech-stand-in`): PocketSphinx hears, Flite speaks
 * (its `slt`, whatever voice id the request named), the modules the worker itself runs offline.
 */
import type { SpeechEngines } from "@dhs/testkit";
import { PocketSphinxTranscriber } from "../hearing/pocketsphinx-transcriber.js";
import { transcribe } from "../hearing/transcriber.js";
import { FliteVoice } from "../speaking/flite-voice.js";

export function offlineEngines(): SpeechEngines & { close(): void } {
  const ears = PocketSphinxTranscriber.find();
  const voice = FliteVoice.find();
  if (!("transcriber" in ears)) throw new Error(ears.missing);
  if (!("voice" in voice)) throw new Error(voice.missing);
  const transcriber = ears.transcriber;
  // One decoder, one turn at a time: concurrent requests wait their turn rather than cut each other short.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    transcribe(speech) {
      const heard = queue.then(() => transcribe(transcriber, speech));
      queue = heard.catch(() => undefined);
      return heard;
    },
    synthesize: (text) => voice.voice.synthesize(text, "slt"),
    close: () => transcriber.close(),
  };
}
