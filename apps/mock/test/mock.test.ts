/**
 * `pnpm mock` as QA runs it: Prism serving openapi/v1.yaml on MOCK_PORT, answering with the contract's
 * named examples and refusing requests the contract refuses, with our ApiError bodies.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { freePort, waitForOutput } from "@dhs/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";

type Json = Record<string, any>;
const contract: Json = parse(readFileSync(new URL("../../../openapi/v1.yaml", import.meta.url), "utf8"));
const example = (name: string) => contract.components.examples[name].value;
const errorExample = (response: string) =>
  Object.values<Json>(contract.components.responses[response].content["application/json"].examples)[0]?.value;

const SESSION_ID = "3fa85f64-5717-4562-b3fc-2c963f66afa6";
const DH_ID = "9a4f3c1e-2b7d-4e8a-b5c6-1d2e3f4a5b6c";
const UTTERANCE_ID = "utt_5e8f0a1b2c3d4e5f60718293";
let prism: ChildProcess;
let base: string;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // `pnpm mock` itself, from the repository's root, as docs/qa.md tells QA to type it.
  prism = spawn("pnpm", ["mock"], {
    cwd: fileURLToPath(new URL("../../..", import.meta.url)),
    env: { ...process.env, MOCK_PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  await waitForOutput(prism, /Prism is listening/, { name: "prism" });
});

afterAll(() => {
  // Prism runs under pnpm; end the whole process group.
  if (prism?.pid) process.kill(-prism.pid, "SIGTERM");
});

const auth = { Authorization: "Bearer dhs_mock_key" };
const json = { "Content-Type": "application/json" };

describe("pnpm mock", () => {
  it("answers a valid create with 201 and the example Session", async () => {
    const res = await fetch(`${base}/v1/sessions`, {
      method: "POST",
      headers: { ...auth, ...json, "Idempotency-Key": "qa-1" },
      body: JSON.stringify({ participant_identity: "user-4821", tags: ["qa"] }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("X-Request-ID")).toBeTruthy();
    expect(await res.json()).toEqual(example("SessionCreated"));
  });

  it.each([
    ["getSession", "GET", `/v1/sessions/${SESSION_ID}`, 200, example("SessionActive")],
    ["listSessions", "GET", "/v1/sessions?status=active&limit=2", 200, example("SessionListPage")],
    ["refreshSessionToken", "POST", `/v1/sessions/${SESSION_ID}/token`, 200, example("SessionActive")],
    ["endSession", "POST", `/v1/sessions/${SESSION_ID}/end`, 200, example("SessionCompleted")],
    ["getPrincipal", "GET", "/v1/me", 200, example("PrincipalReadWrite")],
    ["getSessionTranscript", "GET", `/v1/sessions/${SESSION_ID}/transcript?limit=50`, 200, example("TranscriptComplete")],
    ["deleteSessionTranscript", "DELETE", `/v1/sessions/${SESSION_ID}/transcript`, 200, example("TranscriptDeleted")],
    ["listDigitalHumans", "GET", "/v1/digital-humans?kind=custom", 200, example("DigitalHumanListPage")],
    ["getDigitalHuman", "GET", `/v1/digital-humans/${DH_ID}`, 200, example("DigitalHumanAva")],
    ["deleteDigitalHuman", "DELETE", `/v1/digital-humans/${DH_ID}`, 200, example("DigitalHumanDeleted")],
    ["listVoices", "GET", "/v1/voices", 200, example("VoiceListAll")],
    ["getUtterance", "GET", `/v1/sessions/${SESSION_ID}/say/${UTTERANCE_ID}`, 200, example("UtteranceSpoken")],
    ["interruptSession", "POST", `/v1/sessions/${SESSION_ID}/interrupt`, 200, example("InterruptionStopped")],
  ])("answers %s with its first example", async (_name, method, path, status, body) => {
    const res = await fetch(`${base}${path}`, { method, headers: auth });
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual(body);
  });

  it("answers the test helper with its first example, and 403 test_key_required on request", async () => {
    const path = `${base}/v1/test-helpers/sessions/${SESSION_ID}/events`;
    const body = JSON.stringify({ type: "participant_joined" });
    const res = await fetch(path, { method: "POST", headers: { ...auth, ...json }, body });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(example("SessionActive"));
    const refused = await fetch(path, { method: "POST", headers: { ...auth, ...json, Prefer: "code=403" }, body });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual(example("TestKeyRequired"));
    const invalid = await fetch(path, { method: "POST", headers: { ...auth, ...json }, body: JSON.stringify({ type: "meteor_strike" }) });
    expect(invalid.status).toBe(422);
  });

  it("answers the digital human's post of segments with its example, 409 on request, and 422 for a segment over 2 000 characters", async () => {
    const path = `${base}/v1/sessions/${SESSION_ID}/transcript/segments`;
    const token = { Authorization: "Bearer eyJhbGciOiJIUzI1NiJ9.e30.c2ln" };
    const body = JSON.stringify(example("TranscriptSegmentsAppendLines"));
    const res = await fetch(path, { method: "POST", headers: { ...token, ...json }, body });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(example("TranscriptSegmentsAppended"));
    const closed = await fetch(path, { method: "POST", headers: { ...token, ...json, Prefer: "code=409" }, body });
    expect(closed.status).toBe(409);
    expect(await closed.json()).toEqual(example("TranscriptClosed"));
    const segment = {
      id: "a",
      speaker: "participant",
      text: "x".repeat(2001),
      started_at: "2026-11-22T09:27:41.120Z",
      ended_at: "2026-11-22T09:27:42.120Z",
    };
    const invalid = await fetch(path, { method: "POST", headers: { ...token, ...json }, body: JSON.stringify({ segments: [segment] }) });
    expect(invalid.status).toBe(422);
  });

  it("answers a digital human's create and change with their examples, 409 read-only on request, and 422 for an unknown field", async () => {
    const created = await fetch(`${base}/v1/digital-humans`, {
      method: "POST",
      headers: { ...auth, ...json, "Idempotency-Key": "qa-dh-1" },
      body: JSON.stringify({ name: "Maya", greeting: null }),
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual(example("DigitalHumanMaya"));
    const patch = (headers: Record<string, string>, body: unknown) =>
      fetch(`${base}/v1/digital-humans/${DH_ID}`, {
        method: "PATCH",
        headers: { ...auth, ...json, ...headers },
        body: JSON.stringify(body),
      });
    const changed = await patch({}, { greeting: "Hi {participant_identity}." });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toEqual(example("DigitalHumanMaya"));
    const readOnly = await patch({ Prefer: "code=409" }, { name: "Eve" });
    expect(readOnly.status).toBe(409);
    expect(((await readOnly.json()) as { code: string }).code).toBe("digital_human_read_only");
    expect((await patch({}, { colour: "blue" })).status).toBe(422);
  });

  it.each([
    ["say", "say", { text: "Your order shipped this morning.", interrupt: true }, "UtteranceQueued"],
    ["addSessionContext", "context", { text: "The caller is Ines Bauer.", respond: true }, "ContextNoteQueued"],
  ])(
    "answers %s with 202 and its example, 409 session_ended on request, and 422 without a key, with empty text or an unknown field",
    async (_name, path, body, name) => {
      const post = (headers: Record<string, string>, sent: unknown) =>
        fetch(`${base}/v1/sessions/${SESSION_ID}/${path}`, {
          method: "POST",
          headers: { ...auth, ...json, ...headers },
          body: JSON.stringify(sent),
        });
      const queued = await post({ "Idempotency-Key": "qa-say-1" }, body);
      expect(queued.status).toBe(202);
      expect(await queued.json()).toEqual(example(name));
      const ended = await post({ "Idempotency-Key": "qa-say-2", Prefer: "code=409" }, body);
      expect(ended.status).toBe(409);
      expect(await ended.json()).toEqual(example("SessionEnded"));
      expect((await post({}, body)).status).toBe(422);
      expect((await post({ "Idempotency-Key": "qa-say-3" }, { text: "" })).status).toBe(422);
      expect((await post({ "Idempotency-Key": "qa-say-4" }, { ...body, voice: "slt" })).status).toBe(422);
    },
  );

  it("answers 401 with the Unauthorized example when no API key is sent", async () => {
    const res = await fetch(`${base}/v1/sessions/${SESSION_ID}`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(errorExample("Unauthorized"));
  });

  it.each([
    ["a tag that is not a string", { tags: [1] }],
    ["an identity over 100 characters", { participant_identity: "x".repeat(101) }],
    ["a property the contract does not allow", { name: "Ava" }],
    ["21 tags", { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }],
  ])("answers 422 validation_failed for %s", async (_name, body) => {
    const res = await fetch(`${base}/v1/sessions`, {
      method: "POST",
      headers: { ...auth, ...json, "Idempotency-Key": "qa-2" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ code: "validation_failed" });
  });

  it("answers 422 when the Idempotency-Key is missing", async () => {
    const res = await fetch(`${base}/v1/sessions`, { method: "POST", headers: { ...auth, ...json }, body: "{}" });
    expect(res.status).toBe(422);
  });

  it("answers another named example or an error status on request (Prefer)", async () => {
    const completed = await fetch(`${base}/v1/sessions/${SESSION_ID}`, { headers: { ...auth, Prefer: "example=completed" } });
    expect(await completed.json()).toEqual(example("SessionCompleted"));
    const notFound = await fetch(`${base}/v1/sessions/${SESSION_ID}`, { headers: { ...auth, Prefer: "code=404" } });
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toEqual(errorExample("NotFound"));
  });

  it("sends no CORS headers, like the real API", async () => {
    const res = await fetch(`${base}/v1/me`, { headers: { ...auth, Origin: "https://app.example.net" } });
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
});
