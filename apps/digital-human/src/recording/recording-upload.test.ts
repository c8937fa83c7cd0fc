import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type RecordingTarget, uploadRecording } from "./recording-upload.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A store answering each PUT with the next status given (the last one after that), keeping what it got. */
async function store(statuses: number[]): Promise<{ url: string; received: { path: string; bytes: number; type: string }[] }> {
  const received: { path: string; bytes: number; type: string }[] = [];
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    let bytes = 0;
    for await (const chunk of req) bytes += (chunk as Buffer).length;
    received.push({ path: req.url ?? "", bytes, type: String(req.headers["content-type"]) });
    res.statusCode = statuses.length > 1 ? (statuses.shift() as number) : (statuses[0] as number);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

async function recording(bytes: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "dhs-recording-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "audio.ogg");
  await writeFile(file, Buffer.alloc(bytes, 7));
  return file;
}

const target = (url: string): RecordingTarget => ({ url, headers: { "content-type": "audio/ogg" } });
const waits: number[] = [];
const sleep = async (ms: number) => void waits.push(ms);

describe("uploadRecording", () => {
  it("puts the whole file with the target's headers", async () => {
    const s3 = await store([200]);
    const result = await uploadRecording(await recording(250_000), target(`${s3.url}/a`), { renew: async () => target(""), sleep });
    expect(result).toEqual({ ok: true, sizeBytes: 250_000, attempts: 1 });
    expect(s3.received).toEqual([{ path: "/a", bytes: 250_000, type: "audio/ogg" }]);
  });

  it("tries again with growing waits while the store fails, then succeeds", async () => {
    waits.length = 0;
    const s3 = await store([503, 500, 429, 201]);
    const result = await uploadRecording(await recording(1_000), target(`${s3.url}/a`), { renew: async () => target(""), sleep });
    expect(result).toMatchObject({ ok: true, attempts: 4 });
    expect(waits).toEqual([1_000, 3_000, 9_000]);
  });

  it("asks for a new target when the one held is refused, and uses it", async () => {
    const s3 = await store([403, 200]);
    let renewed = 0;
    const renew = async () => {
      renewed++;
      return target(`${s3.url}/renewed`);
    };
    const result = await uploadRecording(await recording(10), target(`${s3.url}/expired`), { renew, sleep });
    expect(result).toMatchObject({ ok: true, attempts: 2 });
    expect(renewed).toBe(1);
    expect(s3.received.map((r) => r.path)).toEqual(["/expired", "/renewed"]);
  });

  it("gives up after its tries with the reason: a store that never answers", async () => {
    const result = await uploadRecording(await recording(10), target("http://127.0.0.1:9/a"), {
      renew: async () => target("http://127.0.0.1:9/a"),
      sleep,
      attempts: 3,
    });
    expect(result).toMatchObject({ ok: false, attempts: 3 });
    expect(result.ok || result.reason).toMatch(/did not answer/);
  });

  it("does not try again what another try cannot change (413)", async () => {
    const s3 = await store([413]);
    const result = await uploadRecording(await recording(10), target(`${s3.url}/a`), { renew: async () => target(""), sleep });
    expect(result).toEqual({ ok: false, reason: "the store answered 413", attempts: 1 });
  });
});
