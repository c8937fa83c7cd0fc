/**
 * LiveKit's webhooks: the signature is a JWT in Authorization (webhook-signature.ts, verified once, before
 * the body is read) whose sha256 claim is the body's hash (checked once the body is read). A verified event is reduced to what sessions care about: which session's room and what
 * happened in it, read from the protobuf JSON directly (five fields; the SDK's message classes would parse
 * and keep everything). The session is the one the room's name was made for (the name is what the
 * service chose and LiveKit keys rooms by); the room's metadata, written at creation, adds the account and
 * must name the same session.
 */
import { ParticipantInfo_Kind } from "@livekit/protocol";
import { sessionIdOfRoom } from "../domain/sessions/session.js";
import type { RoomEvent } from "../domain/sessions/session-service.js";
import { bodyMatches, InvalidWebhookError, WebhookSignature } from "./webhook-signature.js";

export { InvalidWebhookError };

export interface SessionRoomEvent {
  id: string;
  accountId: string;
  sessionId: string;
  event: RoomEvent;
}

/** What the service reads of a LiveKit webhook event. */
export interface LiveKitEvent {
  /** The event's name (`participant_joined`, `room_finished`, ...), or "" when it has none. */
  event: string;
  id: string;
  room: { name: string | undefined; metadata: string | undefined } | undefined;
  participant: { identity: string; sid: string; isAgent: boolean } | undefined;
}

/** A signed event whose room name and metadata do not name the same session: applied to neither. */
export class InconsistentRoomError extends Error {
  override readonly name = "InconsistentRoomError";
}

export class LiveKitEventReceiver {
  private readonly signature: WebhookSignature;

  constructor(apiKey: string, apiSecret: string) {
    this.signature = new WebhookSignature(apiKey, apiSecret);
  }

  /**
   * Verifies the signature's JWT (ours, unexpired) before the body is read, so a forged delivery costs a
   * header, not 64 KiB; returns the body hash it signs. InvalidWebhookError when it does not verify.
   */
  checkAuthorization(authorization: string | undefined): Promise<string> {
    return this.signature.signedSha256(authorization);
  }

  /**
   * The body, if its hash is the one the verified token signs, reduced to what the service reads;
   * InvalidWebhookError when it was tampered with or is not an event.
   */
  parse(rawBody: Buffer, signedSha256: string): LiveKitEvent {
    if (!bodyMatches(rawBody, signedSha256)) {
      throw new InvalidWebhookError("sha256 checksum of body does not match");
    }
    let json: unknown;
    try {
      json = JSON.parse(rawBody.toString("utf8"));
    } catch (error) {
      throw new InvalidWebhookError(`body is not JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (typeof json !== "object" || json === null || Array.isArray(json)) throw new InvalidWebhookError("body is not a JSON object");
    return eventOf(json as Record<string, unknown>);
  }
}

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const object = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** The fields of a WebhookEvent (protobuf JSON: enums by name, or by number) the service reads. */
function eventOf(json: Record<string, unknown>): LiveKitEvent {
  const room = object(json.room);
  const participant = object(json.participant);
  const kind = participant?.kind;
  return {
    event: text(json.event) ?? "",
    id: text(json.id) ?? "",
    room: room ? { name: text(room.name), metadata: text(room.metadata) } : undefined,
    participant: participant
      ? {
          identity: text(participant.identity) ?? "",
          sid: text(participant.sid) ?? "",
          isAgent: kind === "AGENT" || kind === ParticipantInfo_Kind.AGENT,
        }
      : undefined,
  };
}

/**
 * The session event inside a LiveKit event, or undefined for rooms and events sessions ignore;
 * InconsistentRoomError when the room's name and metadata disagree about whose room it is.
 */
export function sessionRoomEvent(event: LiveKitEvent): SessionRoomEvent | undefined {
  const owner = roomOwner(event.room?.name, event.room?.metadata);
  if (!owner) return undefined;
  const base = { id: event.id, accountId: owner.accountId, sessionId: owner.sessionId };
  switch (event.event) {
    case "participant_joined":
    case "participant_left":
      if (!event.participant) return undefined;
      return {
        ...base,
        event: {
          type: event.event,
          identity: event.participant.identity,
          sid: event.participant.sid,
          isAgent: event.participant.isAgent,
        },
      };
    case "room_finished":
      return { ...base, event: { type: "room_finished" } };
    default:
      return undefined;
  }
}

/**
 * Room metadata as written by createSession: the session, its account, and the deployment (its
 * REDIS_KEY_PREFIX), so deployments sharing one LiveKit tell their rooms apart. Rooms not made by this
 * service have none.
 */
export function roomMetadata(sessionId: string, accountId: string, deployment: string): string {
  return JSON.stringify({ session_id: sessionId, account_id: accountId, deployment });
}

/** A room of this service: its name and metadata name the same session. */
export interface RoomOwner {
  accountId: string;
  sessionId: string;
  /** Absent on rooms made before the metadata carried it. */
  deployment: string | undefined;
}

/**
 * Whose room this is: undefined for a room this service did not make (neither its name nor its metadata
 * is ours); InconsistentRoomError when one says it is and the other disagrees.
 */
export function roomOwner(name: string | undefined, metadata: string | undefined): RoomOwner | undefined {
  const sessionId = sessionIdOfRoom(name);
  const claimed = parseMetadata(metadata);
  if (sessionId === undefined) {
    if (claimed) throw new InconsistentRoomError(`room ${name ?? "(no name)"} carries the metadata of session ${claimed.sessionId}`);
    return undefined;
  }
  if (!claimed) throw new InconsistentRoomError(`room ${name} carries no session metadata`);
  if (claimed.sessionId !== sessionId) {
    throw new InconsistentRoomError(`room ${name} carries the metadata of session ${claimed.sessionId}`);
  }
  return claimed;
}

function parseMetadata(metadata: string | undefined): RoomOwner | undefined {
  if (!metadata) return undefined;
  try {
    const parsed = JSON.parse(metadata) as { session_id?: unknown; account_id?: unknown; deployment?: unknown };
    if (typeof parsed.session_id === "string" && typeof parsed.account_id === "string") {
      const deployment = typeof parsed.deployment === "string" ? parsed.deployment : undefined;
      return { accountId: parsed.account_id, sessionId: parsed.session_id, deployment };
    }
  } catch {
    // not ours
  }
  return undefined;
}
