import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type OpenAiSpeechServer, startOpenAiSpeechServer } from "./openai-speech-server.js";
import type { Speech, SpeechEngines } from "./speech-engines.js";
import { encodeWav, parseWav } from "./wav.js";

const KEY = "sk-test";
/** Engines that say what they were given: the words are a description of the audio, the speech a ramp. */
const engines: SpeechEngines = {
  transcribe: async (speech, language) => `${speech.samples.length} samples at ${speech.sampleRate} in ${language ?? "any"}`,
  synthesize: async (text) => ({ samples: Int16Array.from({ length: text.length * 160 }, (_, i) => i % 1000), sampleRate: 16_000 }),
};
const second: Speech = { samples: new Int16Array(16_000), sampleRate: 16_000 };

let server: OpenAiSpeechServer;
beforeAll(async () => {
  server = await startOpenAiSpeechServer({ engines, apiKey: KEY });
});
afterAll(() => server.close());
beforeEach(() => {
  server.setFault("all", "none");
  server.transcriptions.length = 0;
  server.speeches.length = 0;
});

/** Posts `fields` and `file` (a second of silence by default, none for null). */
function transcribe(fields: Record<string, string>, file: Uint8Array | null = encodeWav(second), key = KEY): Promise<Response> {
  const form = new FormData();
  if (file) form.append("file", new File([new Uint8Array(file)], "audio.wav", { type: "audio/wav" }));
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return fetch(`${server.url}/audio/transcriptions`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
}

function speak(body: unknown): Promise<Response> {
  return fetch(`${server.url}/audio/speech`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("POST /v1/audio/transcriptions", () => {
  it("answers each response_format as OpenAI writes it, and records the fields", async () => {
    expect(await (await transcribe({ model: "whisper-1", language: "en" })).json()).toEqual({
      text: "16000 samples at 16000 in en",
      usage: { type: "duration", seconds: 1 },
    });
    expect(await (await transcribe({ model: "m", response_format: "text" })).text()).toBe("16000 samples at 16000 in any\n");
    const verbose = await (await transcribe({ model: "m", response_format: "verbose_json" })).json();
    expect(verbose).toMatchObject({ task: "transcribe", duration: 1, segments: [{ start: 0, end: 1 }] });
    expect(await (await transcribe({ model: "m", response_format: "srt" })).text()).toBe(
      "1\n00:00:00,000 --> 00:00:01,000\n16000 samples at 16000 in any\n\n",
    );
    expect(await (await transcribe({ model: "m", response_format: "vtt" })).text()).toMatch(/^WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n/);
    await transcribe({ model: "whisper-1", prompt: "a hint", temperature: "0.2", "timestamp_granularities[]": "word" });
    expect(server.transcriptions.at(-1)).toMatchObject({
      model: "whisper-1",
      prompt: "a hint",
      temperature: 0.2,
      fields: { "timestamp_granularities[]": "word" },
      apiKey: KEY,
    });
  });

  it.each([
    ["no file", { model: "m" }, null, 400, /'file'/],
    ["no model", {}, undefined, 400, /model/],
    ["a file that is not a WAV", { model: "m" }, Buffer.from("ID3 mp3 bytes"), 400, /Invalid file format. not a WAV file/],
    ["audio under 0.1 s", { model: "m" }, encodeWav({ samples: new Int16Array(100), sampleRate: 16_000 }), 400, /too short/],
    ["an unknown response_format", { model: "m", response_format: "xml" }, undefined, 400, /'xml' is not one of/],
  ])("refuses %s with OpenAI's error body", async (_name, fields, file, status, message) => {
    const res = await transcribe(fields, file);
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: { message: string; type: string } };
    expect(body.error.message).toMatch(message);
    expect(body.error.type).toBe("invalid_request_error");
  });

  it("refuses a body that is not multipart, or malformed, or over 25 MB (413, before reading it all)", async () => {
    const post = (body: string | Uint8Array, contentType: string) =>
      fetch(`${server.url}/audio/transcriptions`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": contentType },
        body,
      });
    expect(await (await post("{}", "application/json")).json()).toMatchObject({ error: { message: /not multipart/ } });
    const cut = await post('--b\r\nContent-Disposition: form-data; name="model"\r\n\r\nm', "multipart/form-data; boundary=b");
    expect(await cut.json()).toMatchObject({
      error: { message: "Could not parse multipart form: a multipart body cut short: its closing boundary is missing" },
    });
    // Its content-length says it all: the 413 comes before any of it is read, and the connection closes.
    const huge = await post(new Uint8Array(25 * 1024 * 1024 + 1), "multipart/form-data; boundary=b");
    expect(huge.status).toBe(413);
    expect(huge.headers.get("connection")).toBe("close");
    expect(server.transcriptions).toEqual([]);
  });

  it("checks the bearer key (401) and names unknown URLs (404)", async () => {
    const res = await transcribe({ model: "m" }, undefined, "sk-wrong");
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: { message: "Incorrect API key provided.", type: "invalid_request_error", param: null, code: "invalid_api_key" },
    });
    expect((await fetch(`${server.url}/audio/translations`, { method: "POST" })).status).toBe(404);
  });
});

describe("POST /v1/audio/speech", () => {
  it("streams pcm at 24 kHz, chunked, and wav with its header", async () => {
    const pcm = await speak({ model: "tts-1", input: "hello", voice: "alloy", response_format: "pcm" });
    expect(pcm.headers.get("transfer-encoding")).toBe("chunked");
    expect(pcm.headers.get("content-type")).toBe("audio/pcm");
    // 800 samples at 16 kHz are 1200 at 24 kHz.
    expect((await pcm.arrayBuffer()).byteLength).toBe(2400);
    const wav = await speak({ model: "tts-1", input: "hello", voice: "alloy", response_format: "wav", speed: 1.5, instructions: "calm" });
    const speech = parseWav(Buffer.from(await wav.arrayBuffer()));
    expect(speech).toMatchObject({ sampleRate: 24_000 });
    expect(speech.samples.length).toBe(1200);
    expect(server.speeches.at(-1)).toMatchObject({
      model: "tts-1",
      input: "hello",
      voice: "alloy",
      responseFormat: "wav",
      speed: 1.5,
      instructions: "calm",
    });
  });

  it.each([
    ["not JSON", "{", /could not parse the JSON/],
    ["no input", { model: "tts-1", voice: "alloy" }, /'input'/],
    ["input over 4096 characters", { model: "tts-1", voice: "alloy", input: "a".repeat(4097) }, /maximum length 4096/],
    ["no voice", { model: "tts-1", input: "hi" }, /'voice'/],
    [
      "mp3, OpenAI's default, which the stand-in does not encode",
      { model: "tts-1", voice: "alloy", input: "hi" },
      /'mp3': the stand-in speaks pcm and wav/,
    ],
    ["a speed out of range", { model: "tts-1", voice: "alloy", input: "hi", response_format: "pcm", speed: 9 }, /speed/],
  ])("refuses %s (400)", async (_name, body, message) => {
    const res = await (typeof body === "string"
      ? fetch(`${server.url}/audio/speech`, { method: "POST", headers: { authorization: `Bearer ${KEY}` }, body })
      : speak(body));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(message);
  });

  it("midway: the status and part of the audio, then the connection is gone", async () => {
    server.setFault("speech", "midway");
    const res = await speak({ model: "tts-1", input: "a longer sentence to speak", voice: "alloy", response_format: "pcm" });
    expect(res.status).toBe(200);
    await expect(res.arrayBuffer()).rejects.toThrow(/terminated/);
    expect(server.speeches).toMatchObject([{ fault: "midway" }]);
  });
});
