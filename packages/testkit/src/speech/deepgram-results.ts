/**
 * Deepgram's transcript messages as its listen API writes them: a streaming `Results` (what the LiveKit
 * plugin reads: `channel.alternatives[0].transcript`, its `words`' times, `is_final`, `speech_final`, and
 * `metadata.request_id`, which it reads unguarded), the `SpeechStarted`, `UtteranceEnd` and closing
 * `Metadata` events, and a prerecorded request's answer. The engines give words, not times, so each
 * word gets an even share of its utterance.
 */
import { randomUUID } from "node:crypto";

export interface Heard {
  transcript: string;
  /** Seconds from the stream's start. */
  start: number;
  end: number;
}

const CHANNEL = [0, 1];
const CONFIDENCE = 0.99;

export function modelInfo(model: string) {
  return { name: model, version: "stand-in", arch: "stand-in" };
}

function words({ transcript, start, end }: Heard) {
  const list = transcript.split(/\s+/).filter((w) => w !== "");
  const each = list.length === 0 ? 0 : (end - start) / list.length;
  return list.map((word, i) => ({
    word,
    start: round(start + i * each),
    end: round(start + (i + 1) * each),
    confidence: CONFIDENCE,
    punctuated_word: word,
  }));
}

function alternative(heard: Heard) {
  return { transcript: heard.transcript, confidence: heard.transcript === "" ? 0 : CONFIDENCE, words: words(heard) };
}

export function resultsMessage(
  heard: Heard,
  flags: { isFinal: boolean; speechFinal: boolean; fromFinalize: boolean },
  session: { requestId: string; model: string },
) {
  return {
    type: "Results",
    channel_index: CHANNEL,
    duration: round(heard.end - heard.start),
    start: round(heard.start),
    is_final: flags.isFinal,
    speech_final: flags.speechFinal,
    ...(flags.fromFinalize ? { from_finalize: true } : {}),
    channel: { alternatives: [alternative(heard)] },
    metadata: { request_id: session.requestId, model_info: modelInfo(session.model), model_uuid: session.requestId },
  };
}

export function speechStartedMessage(timestamp: number) {
  return { type: "SpeechStarted", channel: CHANNEL, timestamp: round(timestamp) };
}

export function utteranceEndMessage(lastWordEnd: number) {
  return { type: "UtteranceEnd", channel: CHANNEL, last_word_end: round(lastWordEnd) };
}

/** What Deepgram sends last, after CloseStream, before it closes the socket. */
export function metadataMessage(session: { requestId: string; model: string }, duration: number, channels: number) {
  return {
    type: "Metadata",
    transaction_key: "deprecated",
    request_id: session.requestId,
    sha256: "",
    created: new Date().toISOString(),
    duration: round(duration),
    channels,
    models: [session.requestId],
    model_info: { [session.requestId]: modelInfo(session.model) },
  };
}

/** A prerecorded (`POST /v1/listen`) request's answer. */
export function prerecordedAnswer(heard: Heard, model: string) {
  const requestId = randomUUID();
  return {
    metadata: {
      request_id: requestId,
      created: new Date().toISOString(),
      duration: round(heard.end),
      channels: 1,
      models: [requestId],
      model_info: { [requestId]: modelInfo(model) },
    },
    results: { channels: [{ alternatives: [alternative(heard)] }] },
  };
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
