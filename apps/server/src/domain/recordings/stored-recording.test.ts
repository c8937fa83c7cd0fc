import { describe, expect, it } from "vitest";
import { erased, failed, newRecording, ready, recordingView, shownStatus } from "./stored-recording.js";

const ID = "3fa85f64-5717-4562-b3fc-2c963f66afa6";
const AT = new Date("2026-11-22T09:41:09.870Z");
const DAY = 86_400_000;

describe("a stored recording, as shown", () => {
  const recording = { ...newRecording(ID), participant_identity: "agent-AJ_1" };
  const done = ready(recording, { durationMs: 1234, sizeBytes: 99 }, AT, 30 * DAY);

  it("is not_requested without one, recording while the session is open, processing once it is terminal", () => {
    expect(shownStatus(undefined, false, false, AT.getTime())).toBe("not_requested");
    expect(shownStatus(recording, false, false, AT.getTime())).toBe("recording");
    expect(shownStatus(recording, true, false, AT.getTime())).toBe("processing");
  });

  it("is ready until its retention ends, then deleted, as it is once erased or its transcript deleted", () => {
    expect(shownStatus(done, true, false, AT.getTime() + 30 * DAY - 1)).toBe("ready");
    expect(shownStatus(done, true, false, AT.getTime() + 30 * DAY)).toBe("deleted");
    expect(shownStatus(erased(done), true, false, AT.getTime())).toBe("deleted");
    expect(shownStatus(done, true, true, AT.getTime())).toBe("deleted");
    expect(shownStatus(recording, false, true, AT.getTime())).toBe("deleted");
  });

  it("keeps a failure's reason, even once its transcript is deleted (there is no file to erase)", () => {
    const lost = failed(recording, { code: "interrupted", message: "lost" }, AT);
    expect(shownStatus(lost, true, true, AT.getTime())).toBe("failed");
    expect(recordingView(ID, lost, "failed")).toEqual(
      expect.objectContaining({
        status: "failed",
        error: { code: "interrupted", message: "lost" },
        completed_at: AT.toISOString(),
        url: null,
      }),
    );
  });

  it("shows the file's format, channels, size and link when ready, and when its retention deleted it, when", () => {
    const link = { url: "https://store.example/x.ogg?sig=1", expiresAt: new Date(AT.getTime() + 3_600_000) };
    expect(recordingView(ID, done, "ready", link)).toEqual({
      session_id: ID,
      status: "ready",
      format: "audio/ogg",
      channels: { left: "participant", right: "digital_human" },
      duration_ms: 1234,
      size_bytes: 99,
      url: link.url,
      url_expires_at: "2026-11-22T10:41:09.870Z",
      expires_at: "2026-12-22T09:41:09.870Z",
      error: null,
      completed_at: AT.toISOString(),
    });
    expect(recordingView(ID, done, "deleted")).toEqual(
      expect.objectContaining({ status: "deleted", url: null, duration_ms: null, expires_at: "2026-12-22T09:41:09.870Z" }),
    );
  });

  it("keeps the file's key and the job that records it through every change, and nothing of a file once erased", () => {
    expect(newRecording(ID).key).toBe(`${ID}.ogg`);
    const gone = erased(done);
    expect(gone).toEqual({ status: "deleted", key: `${ID}.ogg`, participant_identity: "agent-AJ_1" });
    expect(failed(recording, { code: "upload_failed", message: "x" }, AT, true).settled_by_job).toBe(true);
  });
});
