import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LOG } from "../job/log-lines.js";
import { readWorkerConfig } from "../worker/worker-config.js";
import { oggOpusFile } from "./ogg.fixture.js";
import { RECORDING_ATTRIBUTE, SessionRecording } from "./session-recording.js";

const SESSION = "3fa85f64-5717-4562-b3fc-2c963f66afa6";
const IDENTITY = "agent-AJ_1";
const RECORDING = { session_id: SESSION, status: "recording" };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A store answering each PUT with the given status, counting the bytes it got. */
async function store(status: number): Promise<{ url: string; received: number[] }> {
  const received: number[] = [];
  const server: Server = createServer(async (req, res) => {
    let bytes = 0;
    for await (const chunk of req) bytes += (chunk as Buffer).length;
    received.push(bytes);
    res.statusCode = status;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/recording.ogg`, received };
}

/**
 * A job's recording with the service faked by its fetch (answers by operation, 200 unless given), its
 * participant's attributes and the service's calls on one timeline, and a job directory of its own.
 */
async function job(
  options: { answers?: Record<string, Response>; storeUrl?: string; livekit?: Record<string, string>; attributes?: "fail" | number } = {},
) {
  const timeline: string[] = [];
  const sent: Record<string, unknown[]> = { start: [], upload: [], finish: [] };
  const logs: { message: string; fields: Record<string, unknown> }[] = [];
  const requests: { path: string; sub: unknown }[] = [];
  const fetch = async (request: Request) => {
    const operation = request.url.split("/").pop() ?? "";
    const bearer = request.headers.get("Authorization")?.replace("Bearer ", "") ?? "";
    requests.push({
      path: new URL(request.url).pathname,
      sub: JSON.parse(Buffer.from(bearer.split(".")[1] ?? "", "base64url").toString()).sub,
    });
    timeline.push(`service ${operation}`);
    sent[operation]?.push(await request.json());
    const target = { url: options.storeUrl ?? "http://127.0.0.1:9/x", method: "PUT", headers: {}, expires_at: "", max_bytes: 1_000_000 };
    return options.answers?.[operation]?.clone() ?? Response.json(operation === "upload" ? target : RECORDING);
  };
  const directory = await mkdtemp(join(tmpdir(), "dhs-job-"));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  const participant = {
    identity: IDENTITY,
    /** As rtc-node's: `attributes: n` leaves the first n asks unanswered, as LiveKit once did. */
    unanswered: typeof options.attributes === "number" ? options.attributes : 0,
    async setAttributes(attributes: Record<string, string>) {
      timeline.push(`attribute ${attributes[RECORDING_ATTRIBUTE]}`);
      if (options.attributes === "fail") throw new Error("not\nallowed\u202e");
      if (this.unanswered-- > 0) await new Promise(() => undefined);
    },
  };
  const log = (fields: Record<string, unknown>, message: string) => void logs.push({ message, fields });
  const recording = new SessionRecording({
    service: {
      serviceUrl: "http://dhs.test",
      sessionId: SESSION,
      roomName: `dhs-${SESSION}`,
      apiKey: "devkey",
      apiSecret: "secret",
      fetch,
    },
    participant: () => participant,
    directory,
    logger: { info: log, warn: log },
    livekit: readWorkerConfig(options.livekit ?? { LIVEKIT_URL: "ws://livekit:7880" }),
    attributeTimeoutMs: 50,
  });
  /** The recorder's file in the job's directory, as RecorderIO writes it. */
  const file = async (bytes: Uint8Array) => {
    await mkdir(directory, { recursive: true });
    const path = join(directory, "audio.ogg");
    await writeFile(path, bytes);
    return path;
  };
  return { recording, timeline, sent, logs, directory, file, requests };
}

const conflict = (code: string) => Response.json({ code, detail: "", request_id: "req_1" }, { status: 409 });

describe("SessionRecording.start", () => {
  it("tells the participant before it asks the service, and records on its 200", async () => {
    const { recording, timeline, sent, logs, requests } = await job();
    expect(await recording.start()).toBe(true);
    expect(timeline).toEqual(["attribute audio", "service start"]);
    // With a digital human's token for the job's own identity, as its other operations.
    expect(requests).toEqual([{ path: `/v1/sessions/${SESSION}/recording/start`, sub: IDENTITY }]);
    expect(sent.start).toEqual([{ participant_identity: IDENTITY }]);
    expect(logs.map((l) => l.message)).toEqual([LOG.recordingStarted]);
  });

  it("records nothing and takes the notice back when another job records the session (409)", async () => {
    const { recording, timeline, logs, file, sent } = await job({ answers: { start: conflict("recording_interrupted") } });
    expect(await recording.start()).toBe(false);
    expect(timeline).toEqual(["attribute audio", "service start", "attribute "]);
    expect(logs).toEqual([{ message: LOG.notRecording, fields: { reason: "the service did not agree: recording_interrupted" } }]);
    // Nothing to upload or report at the end, even with a file there.
    await recording.finish(await file(oggOpusFile(312, [48_312n])));
    expect(sent.upload).toEqual([]);
    expect(sent.finish).toEqual([]);
  });

  it("records nothing, and tells nobody, where the worker does not know the service", async () => {
    const participant = { identity: IDENTITY, setAttributes: async () => expect.fail("told") };
    const logs: string[] = [];
    const recording = new SessionRecording({
      service: undefined,
      participant: () => participant,
      directory: join(tmpdir(), "dhs-none"),
      logger: { info: () => undefined, warn: (_fields, message) => void logs.push(message) },
      livekit: readWorkerConfig({}),
    });
    expect(await recording.start()).toBe(false);
    expect(logs).toEqual([LOG.notRecording]);
  });

  it("asks LiveKit again for a notice it did not answer, and records once it did", async () => {
    const { recording, timeline, logs } = await job({ attributes: 2 });
    expect(await recording.start()).toBe(true);
    expect(timeline).toEqual(["attribute audio", "service start", "attribute audio", "attribute audio"]);
    expect(logs.filter((l) => l.message.includes("asking again")).map((l) => l.fields)).toEqual([{ attempt: 1 }, { attempt: 2 }]);
  });

  it("gives up recording after three unanswered asks, takes the notice back, and says why", async () => {
    const { recording, sent, logs } = await job({ attributes: 3 });
    expect(await recording.start()).toBe(false);
    expect(sent.finish).toEqual([
      {
        participant_identity: IDENTITY,
        outcome: "failed",
        reason: "the participant could not be told they are recorded: LiveKit did not answer",
      },
    ]);
    expect(logs.map((l) => l.message)).toContain(LOG.notRecording);
  });

  it("settles the recording failed at once when the participant cannot be told, the reason on one line the contract takes", async () => {
    const { recording, timeline, sent } = await job({ attributes: "fail" });
    expect(await recording.start()).toBe(false);
    expect(timeline).toEqual(["attribute audio", "service start", "attribute ", "service finish"]);
    expect(sent.finish).toEqual([
      { participant_identity: IDENTITY, outcome: "failed", reason: "the participant could not be told they are recorded: not allowed" },
    ]);
  });

  it("records nothing where the agents framework would send the audio to LiveKit Cloud", async () => {
    const { recording, timeline, sent } = await job({ livekit: { LIVEKIT_URL: "wss://acme-1x2y.livekit.cloud" } });
    expect(await recording.start()).toBe(false);
    expect(timeline).toEqual(["service start", "service finish"]);
    expect(sent.finish).toMatchObject([{ outcome: "failed", reason: expect.stringContaining("acme-1x2y.livekit.cloud") }]);
  });

  it("records nothing where LIVEKIT_OBSERVABILITY_URL would have the framework upload it, LiveKit self-hosted or not", async () => {
    const livekit = { LIVEKIT_URL: "ws://livekit:7880", LIVEKIT_OBSERVABILITY_URL: "https://observe.example.com" };
    const { recording, sent } = await job({ livekit });
    expect(await recording.start()).toBe(false);
    expect(sent.finish).toMatchObject([{ outcome: "failed", reason: expect.stringContaining("https://observe.example.com") }]);
  });
});

describe("SessionRecording.finish", () => {
  it("uploads the file where the service says, reports it uploaded with its duration, and deletes it", async () => {
    const s3 = await store(200);
    const { recording, timeline, sent, logs, directory, file } = await job({ storeUrl: s3.url });
    await recording.start();
    const bytes = oggOpusFile(312, [48_312n, 72_312n]);
    const path = await file(bytes);
    await Promise.all([recording.finish(path), recording.finish(path)]);
    expect(timeline).toEqual(["attribute audio", "service start", "service upload", "service finish"]);
    expect(s3.received).toEqual([bytes.length]);
    expect(sent.finish).toEqual([{ participant_identity: IDENTITY, outcome: "uploaded", duration_ms: 1_500 }]);
    expect(logs[1]).toMatchObject({ message: LOG.recordingUploaded, fields: { bytes: bytes.length, duration_ms: 1_500 } });
    expect(existsSync(directory)).toBe(false);
  });

  it("reports the recording failed with the store's reason, and deletes the file all the same", async () => {
    const s3 = await store(413);
    const { recording, sent, logs, directory, file } = await job({ storeUrl: s3.url });
    await recording.start();
    await recording.finish(await file(oggOpusFile(312, [48_312n])));
    expect(sent.finish).toEqual([
      {
        participant_identity: IDENTITY,
        outcome: "failed",
        reason: "the store did not take the file after 1 tries: the store answered 413",
      },
    ]);
    expect(logs[1]).toMatchObject({ message: LOG.recordingFailed });
    expect(existsSync(directory)).toBe(false);
  });

  it.each([
    ["no recorder", undefined, "the recorder did not start"],
    ["no file", "missing", "the recorder wrote no file"],
    ["an empty file", new Uint8Array(0), "the recorder's file is empty"],
    [
      "a file cut off",
      oggOpusFile(312, [48_312n]).subarray(0, 120),
      "the recorder's file is not a whole Ogg/Opus stream: its duration cannot be read",
    ],
  ] as const)("reports the recording failed, uploading nothing, given %s", async (_case, made, reason) => {
    const { recording, sent, directory, file } = await job();
    await recording.start();
    const path = made === undefined ? undefined : made === "missing" ? join(directory, "audio.ogg") : await file(made);
    await recording.finish(path);
    expect(sent.upload).toEqual([]);
    expect(sent.finish).toEqual([{ participant_identity: IDENTITY, outcome: "failed", reason }]);
    expect(existsSync(directory)).toBe(false);
  });

  it("does not upload a file larger than the store takes", async () => {
    const s3 = await store(200);
    const target = { url: s3.url, method: "PUT", headers: {}, expires_at: "", max_bytes: 100 };
    const { recording, sent, file } = await job({ answers: { upload: Response.json(target) } });
    await recording.start();
    await recording.finish(await file(oggOpusFile(312, [48_312n])));
    expect(s3.received).toEqual([]);
    expect(sent.finish).toMatchObject([{ outcome: "failed", reason: expect.stringMatching(/larger than the store takes \(100 bytes\)/) }]);
  });
});
