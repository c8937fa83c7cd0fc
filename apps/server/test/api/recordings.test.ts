/**
 * Recordings (contract guide, "Recordings"): a digital human's `recording` setting, kept by its sessions
 * and told to their job; the job's start, upload and report; getSessionRecording's states and fresh
 * links; erasure (on request and with the transcript); the timer that fails a recording no file came
 * for; the retention; the one `session.recording_ready` or `session.recording_failed` event; usage; and
 * isolation of accounts, modes, jobs and files. On the local store, served by the service itself.
 */
import { randomUUID } from "node:crypto";
import { digitalHumanToken, WebhookReceiver } from "@dhs/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveriesSettled } from "../support/deliveries.js";
import { DIGITAL_HUMANS, expectApiError, expectData, KEYS, roomEvent, until, useHarness } from "../support/harness.js";
import { metric } from "../support/metrics.js";
import { ShiftedClock } from "../support/shifted-clock.js";

/** The recordings' clock runs this far ahead (a test moves it past the retention). */
let shiftMs = 0;
/** The sweeper's clock: a test moves it past a recording's delivery timeout rather than waiting for it. */
const timers = new ShiftedClock();
const h = useHarness(
  { SWEEP_INTERVAL_MS: "100", RECORDING_DELIVERY_TIMEOUT_S: "10", TEST_MAX_OPEN_SESSIONS: "100" },
  { recordingClock: () => new Date(Date.now() + shiftMs), timerClock: timers.now },
);
const [AVA] = DIGITAL_HUMANS;
const events = new WebhookReceiver();
const JOB = "agent-AJ_first";

beforeAll(async () => {
  await events.start();
  for (const key of [KEYS.aHooks, KEYS.aTest]) {
    const endpoint = expectData(
      await h.client(key).createWebhookEndpoint({ url: events.url, event_types: ["session.recording_ready", "session.recording_failed"] }),
      201,
    );
    events.secrets = [...events.secrets, endpoint.secret ?? ""];
  }
});
afterAll(() => events.stop());

type Session = { id: string; room_name: string };
type Recording = Record<string, any>;

async function recorder(key: string = KEYS.aPersonas, audio = true) {
  return expectData(await h.client(key).createDigitalHuman({ name: "Rita", appearance: AVA.id, recording: { audio } }), 201);
}

async function sessionOf(digitalHumanId: string, key: string = KEYS.a): Promise<Session> {
  return expectData(await h.client(key).createSession({ digital_human_id: digitalHumanId }), 201);
}

/** The digital human's operation `step` on the session's recording, as job `identity` (its token for `room`). */
async function job(
  session: Session,
  step: "start" | "upload" | "finish",
  body: Record<string, unknown> = {},
  identity = JOB,
  room = session.room_name,
) {
  const token = await digitalHumanToken(room, { identity });
  return fetch(`${h.url}/v1/sessions/${session.id}/recording/${step}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ participant_identity: identity, ...body }),
  });
}
async function jobOk(
  session: Session,
  step: "start" | "upload" | "finish",
  body: Record<string, unknown> = {},
  identity = JOB,
): Promise<Recording> {
  const res = await job(session, step, body, identity);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Recording;
}

/** LiveKit says the digital human joined (a live session). */
async function digitalHumanJoins(session: Session): Promise<void> {
  const joined = await h.webhook(roomEvent("participant_joined", session, { identity: JOB, kind: "AGENT" }));
  expect(joined.status).toBe(200);
}

/** A file as the recorder leaves it (its bytes are the store's business, not the service's). */
const FILE = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(4096, 7)]);

/** The job's whole part after the end: the target, the PUT, the report. */
async function deliver(session: Session, durationMs = 5_432, identity = JOB): Promise<Recording> {
  const target = await jobOk(session, "upload", {}, identity);
  const put = await fetch(target.url, { method: "PUT", headers: target.headers, body: FILE });
  expect(put.status, await put.clone().text()).toBe(201);
  return jobOk(session, "finish", { outcome: "uploaded", duration_ms: durationMs }, identity);
}

/** A live session of a recording digital human, its digital human in the room and recording. */
async function recordedSession(): Promise<Session> {
  const session = await sessionOf((await recorder()).id);
  await digitalHumanJoins(session);
  await jobOk(session, "start");
  return session;
}

const read = async (session: Session, key: string = KEYS.a): Promise<Recording> =>
  expectData(await h.client(key).getSessionRecording(session.id));
const eventsOf = (session: Session, type?: string) => events.of(type).filter((e) => e.body.data?.session_id === session.id);

describe("a digital human's recording setting", () => {
  it("is off by default, kept, changed, and checked", async () => {
    const off = expectData(await h.client(KEYS.aPersonas).createDigitalHuman({ name: "Otto", appearance: AVA.id }), 201);
    expect(off.recording).toEqual({ audio: false });
    const on = await recorder();
    expect(on.recording).toEqual({ audio: true });
    const changed = expectData(await h.client(KEYS.aPersonas).updateDigitalHuman(on.id, { description: "Still records" }));
    expect(changed.recording).toEqual({ audio: true });
    expect(expectData(await h.client(KEYS.aPersonas).updateDigitalHuman(on.id, { recording: { audio: false } })).recording).toEqual({
      audio: false,
    });
    const bad = await h.request("POST", "/v1/digital-humans", { key: KEYS.aPersonas, body: { name: "X", recording: { audio: "yes" } } });
    const body = await expectApiError(bad, 422, "validation_failed");
    expect(body.detail.map((d: { path: string }) => d.path)).toContain("recording.audio");
    const extra = await h.request("POST", "/v1/digital-humans", {
      key: KEYS.aPersonas,
      body: { name: "X", recording: { audio: true, video: true } },
    });
    await expectApiError(extra, 422, "validation_failed");
  });

  it("reaches the job of a session created while it was on, and no other", async () => {
    const on = await recorder();
    const recorded = await sessionOf(on.id);
    await h.client(KEYS.aPersonas).updateDigitalHuman(on.id, { recording: { audio: false } });
    const after = await sessionOf(on.id);
    const jobOf = (s: Session) =>
      JSON.parse(h.livekit.callsOf("CreateRoom").find((call) => call.body.name === s.room_name)?.body.agents[0].metadata);
    expect(jobOf(recorded).recording).toEqual({ audio: true });
    expect(jobOf(after).recording).toBeUndefined();
    expect((await read(recorded)).status).toBe("recording");
    expect(await read(after)).toEqual(expect.objectContaining({ status: "not_requested", url: null, format: null }));
    // The session keeps what it was created with: its job may still record.
    expect((await job(recorded, "start")).status).toBe(200);
    await expectApiError(await job(after, "start"), 409, "recording_not_requested");
  });
});

describe("a recorded session", () => {
  it("is recording, then processing, then ready with a fresh signed link to the file, its event sent once, counted once", async () => {
    const ready = () => metric(h.metricsUrl, 'dhs_recordings_settled_total{outcome="ready"}');
    const before = await ready();
    const session = await recordedSession();
    expect(await read(session)).toEqual(expect.objectContaining({ status: "recording", url: null, completed_at: null }));
    // Starting again (a retry) is answered the same.
    expect((await jobOk(session, "start")).status).toBe("recording");
    await h.client().endSession(session.id);
    expect((await read(session)).status).toBe("processing");
    const settled = await deliver(session);
    expect(settled).toEqual(expect.objectContaining({ status: "ready", duration_ms: 5_432, size_bytes: FILE.length, url: null }));
    const shown = await read(session);
    expect(shown).toEqual({
      session_id: session.id,
      status: "ready",
      format: "audio/ogg",
      channels: { left: "participant", right: "digital_human" },
      duration_ms: 5_432,
      size_bytes: FILE.length,
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/recordings\/files\//),
      url_expires_at: expect.any(String),
      expires_at: expect.any(String),
      error: null,
      completed_at: expect.any(String),
    });
    const untilLink = Date.parse(shown.url_expires_at) - Date.now();
    expect(untilLink).toBeGreaterThan(3_500_000);
    expect(untilLink).toBeLessThanOrEqual(3_601_000);
    expect(Date.parse(shown.expires_at) - Date.parse(shown.completed_at)).toBe(30 * 86_400_000);
    const download = await fetch(shown.url);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("audio/ogg");
    expect(download.headers.get("content-disposition")).toBe(`attachment; filename="${session.id}.ogg"`);
    expect(Buffer.from(await download.arrayBuffer()).equals(FILE)).toBe(true);
    // Each read signs a fresh link (its expiry in whole seconds: a second later by the recordings' clock).
    shiftMs += 1000;
    expect((await read(session)).url).not.toBe(shown.url);
    shiftMs = 0;
    // The job's report again is answered as settled; no second event.
    expect((await jobOk(session, "finish", { outcome: "uploaded", duration_ms: 5_432 })).status).toBe("ready");
    await until(() => eventsOf(session).length > 0);
    await deliveriesSettled(h);
    const sent = eventsOf(session);
    expect(sent.map((e) => e.type)).toEqual(["session.recording_ready"]);
    expect(sent[0]?.body.data).toEqual({ ...settled, url: null, url_expires_at: null });
    expect(sent[0]?.verifiedWith).toBeGreaterThanOrEqual(0);
    expect((await ready()) - before).toBe(1);
  });

  it("is not said to play longer than its session lasted: 7 days for a session of seconds is refused, and nothing counted", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const before = expectData(await h.client().getUsage({ from: today, to: today })).totals.recorded_seconds;
    const session = await recordedSession();
    await h.client().endSession(session.id);
    const target = await jobOk(session, "upload");
    expect((await fetch(target.url, { method: "PUT", headers: target.headers, body: FILE })).status).toBe(201);
    const error = await expectApiError(
      await job(session, "finish", { outcome: "uploaded", duration_ms: 604_800_000 }),
      422,
      "validation_failed",
    );
    expect(error.detail).toEqual([
      {
        location: "body",
        path: "duration_ms",
        message: expect.stringMatching(/^is 604800000 ms, longer than the session has lasted \(\d+ ms\)$/),
      },
    ]);
    expect((await read(session)).status).toBe("processing");
    expect((await jobOk(session, "finish", { outcome: "uploaded", duration_ms: 2_000 })).status).toBe("ready");
    const after = expectData(await h.client().getUsage({ from: today, to: today })).totals.recorded_seconds;
    expect(after - before).toBe(2);
  });

  it("counts its seconds, rounded up, in the account's usage", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const before = expectData(await h.client().getUsage({ from: today, to: today })).totals.recorded_seconds;
    const session = await recordedSession();
    await h.client().endSession(session.id);
    await deliver(session, 12_001);
    const after = expectData(await h.client().getUsage({ from: today, to: today })).totals.recorded_seconds;
    expect(after - before).toBe(13);
  });

  it("is failed with the job's reason when it could not upload, and when it reports a file the store does not hold", async () => {
    const refused = await recordedSession();
    await h.client().endSession(refused.id);
    const failed = await jobOk(refused, "finish", { outcome: "failed", reason: "the store answered 503 on 4 tries" });
    expect(failed).toEqual(
      expect.objectContaining({ status: "failed", error: { code: "upload_failed", message: "the store answered 503 on 4 tries" } }),
    );
    const missing = await recordedSession();
    await h.client().endSession(missing.id);
    expect((await jobOk(missing, "finish", { outcome: "uploaded", duration_ms: 1000 })).error).toEqual({
      code: "upload_failed",
      message: "The digital human reported its file uploaded, but the store holds none.",
    });
    await until(() => eventsOf(refused).length > 0 && eventsOf(missing).length > 0);
    expect(eventsOf(refused).map((e) => e.type)).toEqual(["session.recording_failed"]);
    // A report that lacks what its outcome needs is refused, naming it.
    const other = await recordedSession();
    const noDuration = await expectApiError(await job(other, "finish", { outcome: "uploaded" }), 422, "validation_failed");
    expect(noDuration.detail[0].path).toBe("duration_ms");
    const noReason = await expectApiError(await job(other, "finish", { outcome: "failed" }), 422, "validation_failed");
    expect(noReason.detail[0].path).toBe("reason");
  });

  it("fails at once when its digital human never joined or never started it, and after the delivery timeout when no file came, counted by code", async () => {
    const failed = (code: string) => metric(h.metricsUrl, `dhs_recordings_settled_total{outcome="${code}"}`);
    const before = { not_joined: await failed("not_joined"), not_delivered: await failed("not_delivered") };
    const absent = await sessionOf((await recorder()).id);
    await h.client().endSession(absent.id);
    await until(async () => (await read(absent)).status === "failed");
    expect((await read(absent)).error).toEqual({ code: "not_joined", message: expect.stringContaining("never joined") });
    // In the room, but its job never started recording (it could not, or the end came first).
    const unstarted = await sessionOf((await recorder()).id);
    await digitalHumanJoins(unstarted);
    await h.client().endSession(unstarted.id);
    await until(async () => (await read(unstarted)).status === "failed");
    expect((await read(unstarted)).error).toEqual({ code: "not_started", message: expect.stringContaining("never started recording") });
    await expectApiError(await job(unstarted, "start"), 409, "session_ended");
    const silent = await recordedSession();
    await h.client().endSession(silent.id);
    expect((await read(silent)).status).toBe("processing");
    // Its timer is due 10 s after the end: 5 s before it (by the sweeper's clock) it still waits for the file.
    try {
      timers.advance(5_000);
      await h.composed.sweeper.sweep();
      expect((await read(silent)).status).toBe("processing");
      timers.advance(10_000);
      await until(async () => (await read(silent)).status === "failed");
    } finally {
      // The other tests' recordings wait for their files by the wall clock.
      timers.reset();
    }
    expect((await read(silent)).error).toEqual({ code: "not_delivered", message: "No file arrived within 10 s of the session's end." });
    await until(() => eventsOf(silent).length > 0);
    expect(eventsOf(silent).map((e) => e.type)).toEqual(["session.recording_failed"]);
    // A file that comes late is not kept.
    await expectApiError(await job(silent, "upload"), 409, "recording_settled");
    expect((await failed("not_joined")) - before.not_joined).toBe(1);
    expect((await failed("not_delivered")) - before.not_delivered).toBe(1);
  });

  it("fails as interrupted when a second job starts it, which records nothing", async () => {
    const session = await recordedSession();
    const second = await expectApiError(await job(session, "start", {}, "agent-AJ_second"), 409, "recording_interrupted");
    expect(second.detail).toContain("another job");
    expect((await read(session)).error?.code).toBe("interrupted");
    await expectApiError(await job(session, "upload"), 409, "recording_settled");
    await expectApiError(await job(session, "upload", {}, "agent-AJ_second"), 409, "recording_settled");
    await expectApiError(await job(session, "start", {}, "agent-AJ_third"), 409, "recording_settled");
    await until(() => eventsOf(session).length > 0);
    expect(eventsOf(session).map((e) => e.type)).toEqual(["session.recording_failed"]);
  });

  it("takes the job's calls only from the job recording it, with a token for its own room and identity", async () => {
    const session = await recordedSession();
    const elsewhere = await recordedSession();
    // Another room's token, another identity than the token's, an API key: 401.
    expect((await job(session, "start", {}, JOB, elsewhere.room_name)).status).toBe(401);
    const mismatch = await fetch(`${h.url}/v1/sessions/${session.id}/recording/start`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Authorization: `Bearer ${await digitalHumanToken(session.room_name, { identity: JOB })}`,
      },
      body: JSON.stringify({ participant_identity: "agent-AJ_someone" }),
    });
    expect(mismatch.status).toBe(401);
    const withKey = await h.request("POST", `/v1/sessions/${session.id}/recording/start`, { body: { participant_identity: JOB } });
    expect(withKey.status).toBe(401);
    // Another job that did not start it gets no target and cannot settle it.
    await expectApiError(await job(session, "upload", {}, "agent-AJ_other"), 409, "recording_settled");
    await expectApiError(await job(session, "finish", { outcome: "failed", reason: "x" }, "agent-AJ_other"), 409, "recording_settled");
    // A session that ended takes no new start, before and after its end settled the recording nobody started.
    const late = await sessionOf((await recorder()).id);
    await h.client().endSession(late.id);
    await expectApiError(await job(late, "start"), 409, "session_ended");
    await until(async () => (await read(late)).status === "failed");
    await expectApiError(await job(late, "start"), 409, "session_ended");
  });
});

describe("a recording's file", () => {
  it("is reached only at its own signed link: another session's file, another method or a changed link is 403", async () => {
    const first = await recordedSession();
    const second = await recordedSession();
    await h.client().endSession(first.id);
    await h.client().endSession(second.id);
    await deliver(first);
    const target = await jobOk(second, "upload");
    // The first session's upload target cannot write the second's file, nor write its own again.
    const link = (await read(first)).url as string;
    const swapped = link.replace(first.id, second.id);
    expect((await fetch(swapped)).status).toBe(403);
    expect((await fetch(`${link}x`)).status).toBe(403);
    expect((await fetch(link, { method: "PUT", body: FILE })).status).toBeGreaterThanOrEqual(403);
    expect((await fetch(target.url.replace(second.id, first.id), { method: "PUT", headers: target.headers, body: FILE })).status).toBe(403);
    const unsigned = new URL(link);
    unsigned.search = "";
    expect((await fetch(unsigned)).status).toBe(403);
  });

  it("at a path whose percent-encoding does not decode is not found, with no credentials asked, as the API answers", async () => {
    for (const [method, path] of [
      ["GET", "/recordings/files/%ZZ"],
      ["GET", "/recordings/files/a/%E0%A4%A.ogg?expires=1&signature=x"],
      ["PUT", "/recordings/upload/%ZZ"],
    ] as const) {
      const error = await expectApiError(await h.request(method, path, { key: null }), 404, "not_found");
      expect(error.detail).toBe("The path could not be decoded.");
    }
  });

  it("of another account, or of the other mode, is not found", async () => {
    const session = await recordedSession();
    await expectApiError(await h.client(KEYS.b).getSessionRecording(session.id), 404, "not_found");
    await expectApiError(await h.client(KEYS.b).deleteSessionRecording(session.id), 404, "not_found");
    await expectApiError(await h.client(KEYS.aTest).getSessionRecording(session.id), 404, "not_found");
    await expectApiError(await h.client().getSessionRecording(randomUUID()), 404, "not_found");
    await expectApiError(await h.client().getSessionRecording("not-a-session"), 404, "not_found");
    expect((await read(session)).status).toBe("recording");
  });

  it("is read with sessions:read and deleted with sessions:write", async () => {
    const session = await recordedSession();
    expect(expectData(await h.client(KEYS.aRead).getSessionRecording(session.id)).status).toBe("recording");
    await expectApiError(await h.client(KEYS.aWrite).getSessionRecording(session.id), 403, "forbidden");
    await expectApiError(await h.client(KEYS.aRead).deleteSessionRecording(session.id), 403, "forbidden");
    expect(expectData(await h.client(KEYS.aWrite).deleteSessionRecording(session.id)).status).toBe("deleted");
  });
});

describe("erasing a recording", () => {
  it("deletes a ready file at once, and answers deleted from then on (again too)", async () => {
    const session = await recordedSession();
    await h.client().endSession(session.id);
    await deliver(session);
    const link = (await read(session)).url as string;
    const deleted = expectData(await h.client().deleteSessionRecording(session.id));
    expect(deleted).toEqual(expect.objectContaining({ status: "deleted", url: null, duration_ms: null }));
    expect((await fetch(link)).status).toBe(404);
    expect(expectData(await h.client().deleteSessionRecording(session.id)).status).toBe("deleted");
    expect((await read(session)).status).toBe("deleted");
    // The job's report again finds it erased.
    await expectApiError(await job(session, "finish", { outcome: "uploaded", duration_ms: 1 }), 409, "recording_settled");
  });

  it("while it records stops it: the job gets no target, the one it holds takes no file, and its report is refused", async () => {
    const session = await recordedSession();
    const target = await jobOk(session, "upload");
    expect(expectData(await h.client().deleteSessionRecording(session.id)).status).toBe("deleted");
    await expectApiError(await job(session, "upload"), 409, "recording_settled");
    const put = await fetch(target.url, { method: "PUT", headers: target.headers, body: FILE });
    expect(put.status).toBe(403);
    await expectApiError(await job(session, "finish", { outcome: "uploaded", duration_ms: 1 }), 409, "recording_settled");
    const storage = h.composed.recordings.service.deps.storage;
    expect(await storage.stat(`${session.id}.ogg`)).toBeUndefined();
    await h.client().endSession(session.id);
    await deliveriesSettled(h);
    expect(eventsOf(session)).toEqual([]);
  });

  it("once ready cannot be written back or read with what was handed out before: target refused, link 404, deleted again soon", async () => {
    const session = await recordedSession();
    await h.client().endSession(session.id);
    const target = await jobOk(session, "upload");
    expect((await fetch(target.url, { method: "PUT", headers: target.headers, body: FILE })).status).toBe(201);
    await jobOk(session, "finish", { outcome: "uploaded", duration_ms: 4_000 });
    const link = (await read(session)).url as string;
    expectData(await h.client().deleteSessionRecording(session.id));
    // The job's target is valid for 15 minutes, the link for its own time: neither outlives the erasure.
    const again = await fetch(target.url, { method: "PUT", headers: target.headers, body: FILE });
    expect(again.status).toBe(403);
    expect((await fetch(link)).status).toBe(404);
    const storage = h.composed.recordings.service.deps.storage;
    expect(await storage.stat(`${session.id}.ogg`)).toBeUndefined();
    // Whatever a bucket's presigned target could still write is deleted again once it lapses, not after 30 days.
    const expiries = h.composed.recordings.service.deps.expiries;
    expect(await expiries.due(Date.now() + 17 * 60_000, 1_000)).toContain(`${session.id}.ogg`);
  });

  it("while 200 downloads are in flight: each is served whole or not found, and the service goes on", { timeout: 60_000 }, async () => {
    const big = Buffer.concat([FILE, Buffer.alloc(1024 * 1024, 3)]);
    // The race is between a download's look at the file and its open: three rounds, as the probe needed one.
    for (let round = 0; round < 3; round++) {
      const session = await recordedSession();
      await h.client().endSession(session.id);
      const target = await jobOk(session, "upload");
      expect((await fetch(target.url, { method: "PUT", headers: target.headers, body: big })).status).toBe(201);
      await jobOk(session, "finish", { outcome: "uploaded", duration_ms: 4_000 });
      const link = (await read(session)).url as string;
      const download = async (): Promise<string> => {
        const res = await fetch(link, { signal: AbortSignal.timeout(15_000) });
        if (res.status !== 200) return String(res.status);
        return (await res.arrayBuffer()).byteLength === big.length ? "whole" : "cut";
      };
      const downloads = Array.from({ length: 200 }, () => download().catch((error: Error) => `no answer (${error.name})`));
      const erased = h.client().deleteSessionRecording(session.id);
      const outcomes = await Promise.all(downloads);
      expect(expectData(await erased).status).toBe("deleted");
      expect(outcomes.filter((o) => o !== "whole" && o !== "404")).toEqual([]);
      expect(await download()).toBe("404");
      expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
    }
  });

  it("with the session's transcript, which erases the recording too", async () => {
    const session = await recordedSession();
    await h.client().endSession(session.id);
    await deliver(session);
    const link = (await read(session)).url as string;
    expectData(await h.client().deleteSessionTranscript(session.id));
    expect((await read(session)).status).toBe("deleted");
    expect((await fetch(link)).status).toBe(404);
  });

  it("that failed keeps its reason: there is no file", async () => {
    const session = await recordedSession();
    await h.client().endSession(session.id);
    await jobOk(session, "finish", { outcome: "failed", reason: "the recorder stopped" });
    const kept = expectData(await h.client().deleteSessionRecording(session.id));
    expect(kept).toEqual(expect.objectContaining({ status: "failed", error: { code: "upload_failed", message: "the recorder stopped" } }));
  });

  it("of a session that does not record answers not_requested", async () => {
    const session = await sessionOf((await recorder(KEYS.aPersonas, false)).id);
    expect(expectData(await h.client().deleteSessionRecording(session.id)).status).toBe("not_requested");
  });

  it("by the retention: past expires_at it is deleted, and the retention's pass deletes the file", async () => {
    const session = await recordedSession();
    await h.client().endSession(session.id);
    await deliver(session);
    const ready = await read(session);
    try {
      shiftMs = 30 * 86_400_000 + 1_000;
      expect(await read(session)).toEqual(expect.objectContaining({ status: "deleted", url: null, expires_at: ready.expires_at }));
      expect(await h.composed.recordings.retention.pass()).toBeGreaterThanOrEqual(1);
      expect(await h.composed.recordings.service.deps.storage.stat(`${session.id}.ogg`)).toBeUndefined();
    } finally {
      shiftMs = 0;
    }
    expect((await read(session)).status).toBe("deleted");
  });
});

describe("test mode", () => {
  it("records test sessions alike, kept apart from live ones", async () => {
    const dh = await recorder(KEYS.aTest);
    const session = await sessionOf(dh.id, KEYS.aTest);
    expectData(await h.client(KEYS.aTest).sendTestSessionEvent(session.id, { type: "digital_human_joined" }));
    await jobOk(session, "start");
    await h.client(KEYS.aTest).endSession(session.id);
    await deliver(session);
    expect((await read(session, KEYS.aTest)).status).toBe("ready");
    await expectApiError(await h.client().getSessionRecording(session.id), 404, "not_found");
    await until(() => eventsOf(session).length > 0);
    expect(eventsOf(session)[0]?.body.mode).toBe("test");
  });
});
