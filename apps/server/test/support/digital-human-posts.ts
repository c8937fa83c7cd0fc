/** What the digital human's worker sends: its token for a session's room, and the transcript segments it posts. */
import { digitalHumanToken } from "@dhs/testkit";
import type { Harness } from "./harness.js";

export type Segment = { id: string; speaker: "participant" | "digital_human"; text: string; started_at: string; ended_at: string };

const T0 = Date.parse("2026-11-22T09:27:41.000Z");

/** A segment `startS` seconds into the conversation, 0.9 s long. */
export function segment(id: string, startS: number, text = `line ${id}`, speaker: Segment["speaker"] = "digital_human"): Segment {
  return {
    id,
    speaker,
    text,
    started_at: new Date(T0 + startS * 1000).toISOString(),
    ended_at: new Date(T0 + startS * 1000 + 900).toISOString(),
  };
}

/** A token as the digital human's worker mints it: an agent's grant for the session's room (the testkit's). */
export const workerToken = digitalHumanToken;

/** POSTs segments as the worker does (its token unless `authorization` is given; null: none). */
export async function postSegments(
  h: Harness,
  session: { id: string; room_name: string },
  body: unknown,
  authorization?: string | null,
): Promise<Response> {
  const auth = authorization === undefined ? `Bearer ${await workerToken(session.room_name)}` : authorization;
  return fetch(`${h.url}/v1/sessions/${session.id}/transcript/segments`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(auth === null ? {} : { Authorization: auth }) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
