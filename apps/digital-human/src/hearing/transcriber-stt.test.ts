import { initializeLogger, stt, type VAD } from "@livekit/agents";
import { AudioFrame } from "@livekit/rtc-node";
import { beforeAll, describe, expect, it } from "vitest";
import { resample } from "../speaking/audio.js";
import { ESpeakVoice } from "../speaking/espeak-voice.js";
import type { Speech } from "../speaking/voice.js";
import type { Transcriber } from "./transcriber.js";
import { TranscriberSTT } from "./transcriber-stt.js";
import { loadVad } from "./vad.js";

let vad: VAD;
beforeAll(async () => {
  initializeLogger({ pretty: false, level: "silent" });
  vad = await loadVad();
});

/** A transcriber that records what each turn was given and when, and ends each with the next of `answers`. */
function recordingTranscriber(answers: (string | Error)[]) {
  const log: string[] = [];
  const turns: Speech[][] = [];
  const transcriber: Transcriber = {
    startTurn() {
      const heard: Speech[] = [];
      turns.push(heard);
      log.push("start");
      return {
        hear(speech) {
          heard.push(speech);
          if (log.at(-1) !== "hear") log.push("hear");
        },
        async end() {
          log.push("end");
          const answer = answers.shift() ?? "";
          if (answer instanceof Error) throw answer;
          return answer;
        },
      };
    },
  };
  return { transcriber, log, turns };
}

describe("TranscriberSTT.recognize", () => {
  it("hands a whole recording to the transcriber as one mono turn and answers its words as the final transcript", async () => {
    const { transcriber, turns } = recordingTranscriber(["what time is it"]);
    // Two stereo frames of 10 ms at 16 kHz: left rising, right silent.
    const frames = [0, 1].map((n) => {
      const data = new Int16Array(320).map((_, i) => (i % 2 === 0 ? n * 160 + i / 2 : 0));
      return new AudioFrame(data, 16_000, 2, 160);
    });
    const event = await new TranscriberSTT(transcriber, vad).recognize(frames);
    expect(event.type).toBe(stt.SpeechEventType.FINAL_TRANSCRIPT);
    expect(event.alternatives?.[0]).toMatchObject({ text: "what time is it", language: "en", confidence: 1 });
    expect(event.alternatives?.[0]?.endTime).toBeCloseTo(0.02, 5);
    const heard = turns[0]?.[0];
    expect(heard?.sampleRate).toBe(16_000);
    expect([...(heard?.samples ?? [])]).toEqual(Array.from({ length: 320 }, (_, i) => i));
  });

  it("answers an empty transcript with no confidence when nothing was recognized", async () => {
    const { transcriber } = recordingTranscriber([""]);
    const event = await new TranscriberSTT(transcriber, vad).recognize(new AudioFrame(new Int16Array(160), 16_000, 1, 160));
    expect(event.alternatives?.[0]).toMatchObject({ text: "", confidence: 0 });
  });
});

describe("TranscriberSTT's stream", () => {
  it("hands each turn the VAD hears to the transcriber while it is spoken, and reports its words; a turn that failed or had none reports no transcript", async () => {
    const voice = await ESpeakVoice.load();
    const speech = await voice.synthesize("Could you tell me more about the weather in Lisbon this week?");
    const words = resample(speech.samples, speech.sampleRate, 16_000);
    const second = 16_000;
    // Three turns, each followed by a second and a half of silence.
    const audio = new Int16Array(second + 3 * (words.length + 1.5 * second));
    for (let turn = 0; turn < 3; turn++) audio.set(words, second + turn * (words.length + 1.5 * second));

    const { transcriber, log, turns } = recordingTranscriber([new Error("decoder exited"), "", "the weather in lisbon"]);
    const stream = new TranscriberSTT(transcriber, vad).stream();
    const events: stt.SpeechEvent[] = [];
    const reading = (async () => {
      for await (const event of stream) events.push(event);
    })();
    for (let i = 0; i + 160 <= audio.length; i += 160) {
      stream.pushFrame(new AudioFrame(audio.slice(i, i + 160), 16_000, 1, 160));
      if (i % 1600 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    for (let waited = 0; events.length < 7 && waited < 20_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    stream.close();
    await reading.catch(() => undefined);

    const { START_OF_SPEECH, END_OF_SPEECH, FINAL_TRANSCRIPT } = stt.SpeechEventType;
    expect(events.map((e) => e.type)).toEqual([
      START_OF_SPEECH,
      END_OF_SPEECH,
      START_OF_SPEECH,
      END_OF_SPEECH,
      START_OF_SPEECH,
      END_OF_SPEECH,
      FINAL_TRANSCRIPT,
    ]);
    expect(events[6]?.alternatives?.[0]).toMatchObject({ text: "the weather in lisbon", confidence: 1 });
    // Given as it was heard, window by window, each turn whole (with the VAD's padding before it).
    expect(log).toEqual(["start", "hear", "end", "start", "hear", "end", "start", "hear", "end"]);
    for (const heard of turns) {
      expect(heard.length).toBeGreaterThan(20);
      const seconds = heard.reduce((n, s) => n + s.samples.length / s.sampleRate, 0);
      expect(seconds).toBeGreaterThan(words.length / second);
      expect(seconds).toBeLessThan(words.length / second + 1.5);
    }
    expect(events[6]?.alternatives?.[0]?.endTime).toBeGreaterThan(words.length / second);
  });
});
