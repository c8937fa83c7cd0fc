/**
 * OpenAI's two audio requests as its API reads and answers them, apart from the HTTP around them: a
 * transcription's multipart fields checked and its answer in each `response_format`, and a speech
 * request's JSON checked as OpenAI checks it (its messages and limits), so a plugin that sends what the
 * real API would refuse is refused here too.
 */

import { type FormPart, formField } from "./multipart-form.js";
import type { Speech } from "./speech-engines.js";
import { parseWav } from "./wav.js";

/** A request OpenAI would refuse: the status and message its error body carries. */
export class OpenAiRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

export interface TranscriptionFields {
  model: string;
  language: string | undefined;
  prompt: string | undefined;
  responseFormat: string;
  temperature: number | undefined;
  /** Every text field as sent (timestamp_granularities[], include[], chunking_strategy, ...). */
  fields: Record<string, string>;
  fileName: string | undefined;
  audio: Speech;
}

const TRANSCRIPTION_FORMATS = ["json", "text", "verbose_json", "srt", "vtt"];
/** OpenAI refuses shorter audio (`audio_too_short`). */
const MIN_AUDIO_S = 0.1;

export function transcriptionFields(parts: FormPart[]): TranscriptionFields {
  const file = parts.find((p) => p.name === "file" && p.filename !== undefined);
  if (!file) throw new OpenAiRefusal(400, "Missing required parameter: 'file'.", "file");
  const model = formField(parts, "model");
  if (!model) throw new OpenAiRefusal(400, "you must provide a model parameter", "model");
  const responseFormat = formField(parts, "response_format") ?? "json";
  if (!TRANSCRIPTION_FORMATS.includes(responseFormat)) {
    throw new OpenAiRefusal(
      400,
      `'${responseFormat}' is not one of ${TRANSCRIPTION_FORMATS.join(", ")} - 'response_format'`,
      "response_format",
    );
  }
  const temperature = formField(parts, "temperature");
  let audio: Speech;
  try {
    audio = parseWav(file.data);
  } catch (error) {
    // OpenAI names its formats; this one reads 16-bit PCM WAV, what the LiveKit plugins upload.
    throw new OpenAiRefusal(
      400,
      `Invalid file format. ${(error as Error).message} (the stand-in reads 16-bit PCM WAV)`,
      "file",
      "invalid_value",
    );
  }
  if (audio.samples.length / audio.sampleRate < MIN_AUDIO_S) {
    throw new OpenAiRefusal(400, `Audio file is too short. Minimum audio length is ${MIN_AUDIO_S} seconds.`, "file", "audio_too_short");
  }
  const fields = Object.fromEntries(parts.filter((p) => p.filename === undefined).map((p) => [p.name, p.data.toString("utf8")]));
  return {
    model,
    language: formField(parts, "language") || undefined,
    prompt: formField(parts, "prompt"),
    responseFormat,
    temperature: temperature === undefined || temperature === "" ? undefined : Number(temperature),
    fields,
    fileName: file.filename,
    audio,
  };
}

/** The answer's content type and body for `format`, as OpenAI writes each. */
export function transcriptionAnswer(format: string, text: string, audio: Speech, language: string | undefined) {
  const duration = audio.samples.length / audio.sampleRate;
  if (format === "text") return { type: "text/plain; charset=utf-8", body: `${text}\n` };
  if (format === "srt") return { type: "text/plain; charset=utf-8", body: `1\n${clock(0, ",")} --> ${clock(duration, ",")}\n${text}\n\n` };
  if (format === "vtt")
    return { type: "text/vtt; charset=utf-8", body: `WEBVTT\n\n${clock(0, ".")} --> ${clock(duration, ".")}\n${text}\n\n` };
  if (format === "verbose_json") {
    const segment = {
      id: 0,
      seek: 0,
      start: 0,
      end: duration,
      text,
      tokens: [],
      temperature: 0,
      avg_logprob: 0,
      compression_ratio: 1,
      no_speech_prob: 0,
    };
    const body = { task: "transcribe", language: language ?? "english", duration, text, segments: [segment] };
    return { type: "application/json", body: JSON.stringify(body) };
  }
  return { type: "application/json", body: JSON.stringify({ text, usage: { type: "duration", seconds: Math.ceil(duration) } }) };
}

function clock(seconds: number, comma: string): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${comma}${pad(ms % 1000, 3)}`;
}

export interface SpeechFields {
  model: string;
  input: string;
  voice: string;
  responseFormat: string;
  speed: number | undefined;
  instructions: string | undefined;
}

/** OpenAI's limit on `input`. */
const MAX_INPUT = 4096;
/** What the stand-in speaks: raw PCM (the LiveKit plugin's ask) and WAV. OpenAI's compressed formats are refused by name. */
export const SPEECH_FORMATS = ["pcm", "wav"];

export function speechFields(body: unknown): SpeechFields {
  if (typeof body !== "object" || body === null) throw new OpenAiRefusal(400, "We could not parse the JSON body of your request.");
  const b = body as Record<string, unknown>;
  if (typeof b.model !== "string" || b.model === "") throw new OpenAiRefusal(400, "you must provide a model parameter", "model");
  if (typeof b.input !== "string" || b.input === "") throw new OpenAiRefusal(400, "Missing required parameter: 'input'.", "input");
  if (b.input.length > MAX_INPUT)
    throw new OpenAiRefusal(400, `string too long. Expected a string with maximum length ${MAX_INPUT}`, "input");
  if (typeof b.voice !== "string" || b.voice === "") throw new OpenAiRefusal(400, "Missing required parameter: 'voice'.", "voice");
  const responseFormat = b.response_format ?? "mp3";
  if (typeof responseFormat !== "string" || !SPEECH_FORMATS.includes(responseFormat)) {
    throw new OpenAiRefusal(
      400,
      `response_format '${String(responseFormat)}': the stand-in speaks ${SPEECH_FORMATS.join(" and ")}`,
      "response_format",
    );
  }
  const speed = b.speed ?? undefined;
  if (speed !== undefined && (typeof speed !== "number" || speed < 0.25 || speed > 4)) {
    throw new OpenAiRefusal(400, "speed must be a number from 0.25 to 4.0", "speed");
  }
  const instructions = typeof b.instructions === "string" ? b.instructions : undefined;
  return { model: b.model, input: b.input, voice: b.voice, responseFormat, speed, instructions };
}
