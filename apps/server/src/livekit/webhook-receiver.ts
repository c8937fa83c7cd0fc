/**
 * LiveKit's webhooks: the signature (a JWT in Authorization whose sha256 claim is the body's hash) is
 * checked by livekit-server-sdk's WebhookReceiver on the raw body. A verified event is reduced to what
 * sessions care about: which session's room (from the room metadata written at creation) and what
 * happened in it.
 */
import { ParticipantInfo_Kind } from "@livekit/protocol";
import { TokenVerifier, type WebhookEvent, WebhookReceiver } from "livekit-server-sdk";
import type { RoomEvent } from "../domain/session-service.js";

export interface SessionRoomEvent {
  id: string;
  accountId: string;
  sessionId: string;
  event: RoomEvent;
}

export class InvalidWebhookError extends Error {
  override readonly name = "InvalidWebhookError";
}

export class LiveKitWebhooks {
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

/** The session event inside a LiveKit event, or undefined for rooms and events sessions ignore. */
export function sessionRoomEvent(event: WebhookEvent): SessionRoomEvent | undefined {
  const owner = roomOwner(event.room?.metadata);
  if (!owner) return undefined;
  const base = { id: event.id, ...owner };
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

/** Room metadata as written by createSession. Rooms not made by this service have none. */
export function roomMetadata(sessionId: string, accountId: string): string {
  return JSON.stringify({ session_id: sessionId, account_id: accountId });
}

function roomOwner(metadata: string | undefined): { accountId: string; sessionId: string } | undefined {
  if (!metadata) return undefined;
  try {
    const parsed = JSON.parse(metadata) as { session_id?: unknown; account_id?: unknown };
    if (typeof parsed.session_id === "string" && typeof parsed.account_id === "string") {
      return { accountId: parsed.account_id, sessionId: parsed.session_id };
    }
  } catch {
    // not ours
  }
  return undefined;
}
