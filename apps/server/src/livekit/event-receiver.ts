/**
 * LiveKit's webhooks: the signature (a JWT in Authorization whose sha256 claim is the body's hash) is
 * checked by livekit-server-sdk's WebhookReceiver on the raw body. A verified event is reduced to what
 * sessions care about: which session's room and what happened in it. The session is the one the room's
 * name was made for (the name is what the service chose and LiveKit keys rooms by); the room's metadata,
 * written at creation, adds the account and must name the same session.
 */
import { ParticipantInfo_Kind } from "@livekit/protocol";
import { TokenVerifier, type WebhookEvent, WebhookReceiver } from "livekit-server-sdk";
import { sessionIdOfRoom } from "../domain/sessions/session.js";
import type { RoomEvent } from "../domain/sessions/session-service.js";

export interface SessionRoomEvent {
  id: string;
  accountId: string;
  sessionId: string;
  event: RoomEvent;
}

export class InvalidWebhookError extends Error {
  override readonly name = "InvalidWebhookError";
}

/** A signed event whose room name and metadata do not name the same session: applied to neither. */
export class InconsistentRoomError extends Error {
  override readonly name = "InconsistentRoomError";
}

export class LiveKitEventReceiver {
  private readonly receiver: WebhookReceiver;
  private readonly verifier: TokenVerifier;

  constructor(apiKey: string, apiSecret: string) {
    this.receiver = new WebhookReceiver(apiKey, apiSecret);
    this.verifier = new TokenVerifier(apiKey, apiSecret);
  }

  /**
   * Checks the signature's JWT alone (ours, unexpired), before the body is read, so a forged delivery
   * costs a header, not 64 KiB; InvalidWebhookError when it does not verify. verify() checks it again
   * with the body's hash.
   */
  async checkAuthorization(authorization: string | undefined): Promise<void> {
    if (!authorization) throw new InvalidWebhookError("authorization header is empty");
    try {
      await this.verifier.verify(authorization);
    } catch (error) {
      throw new InvalidWebhookError(error instanceof Error ? error.message : String(error));
    }
  }

  /** Verifies and parses a delivery; InvalidWebhookError when it is unsigned, stale or tampered with. */
  async verify(rawBody: string, authorization: string | undefined): Promise<WebhookEvent> {
    try {
      return await this.receiver.receive(rawBody, authorization);
    } catch (error) {
      throw new InvalidWebhookError(error instanceof Error ? error.message : String(error));
    }
  }
}

/**
 * The session event inside a LiveKit event, or undefined for rooms and events sessions ignore;
 * InconsistentRoomError when the room's name and metadata disagree about whose room it is.
 */
export function sessionRoomEvent(event: WebhookEvent): SessionRoomEvent | undefined {
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
          isAgent: event.participant.kind === ParticipantInfo_Kind.AGENT,
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
