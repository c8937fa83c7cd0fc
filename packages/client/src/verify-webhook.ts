/**
 * Verifying a delivery of the service's webhooks (contract guide, "Webhooks"), for a customer's
 * receiver: the Standard Webhooks signature over the raw body, with the `standardwebhooks` library, and
 * the timestamp within five minutes of now. Give it the body exactly as it arrived (before any JSON
 * parsing) and the endpoint's secret; during a rotation, either the old or the new secret verifies.
 */
import type {
  Document,
  ParticipantTurnData,
  SessionAnalysis,
  SessionEventData,
  SessionRecording,
  ToolCalledData,
  ToolCallPayload,
  TranscriptReadyData,
  UtteranceEventData,
  WebhookEventType,
  WebhookPayload,
  WebhookTestData,
} from "@dhs/contract";
import { Webhook } from "standardwebhooks";

/**
 * Each event type's `data`, as the contract's guide ("Webhooks") lists them; the contract's schema says
 * only that `data` is one of them. Every event type must be named: a type the contract adds does not
 * compile until it is.
 */
type DataOf<T extends Record<WebhookEventType, WebhookPayload["data"]>> = T;
type WebhookData = DataOf<{
  "session.created": SessionEventData;
  "session.active": SessionEventData;
  "session.digital_human_joined": SessionEventData;
  "session.ended": SessionEventData;
  "session.transcript_ready": TranscriptReadyData;
  "session.analysis_ready": SessionAnalysis;
  "session.recording_ready": SessionRecording;
  "session.recording_failed": SessionRecording;
  "session.participant_turn": ParticipantTurnData;
  "session.utterance_started": UtteranceEventData;
  "session.utterance_ended": UtteranceEventData;
  "session.tool_called": ToolCalledData;
  "document.ready": Document;
  "document.failed": Document;
  "webhook.test": WebhookTestData;
}>;

/** A delivery whose `data` narrows with its `type` (`if (event.type === "session.participant_turn")`). */
export type VerifiedWebhook = {
  [T in WebhookEventType]: Omit<WebhookPayload, "type" | "data"> & { type: T; data: WebhookData[T] };
}[WebhookEventType];

/**
 * A delivery that did not verify: forged, altered, signed with another secret, or too old or too new.
 * The client's own class, so the library's declarations (which need Node's types) never reach yours.
 */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

type Headers = Record<string, string | string[] | undefined> | { get(name: string): string | null };

/**
 * The delivered event, once its signature verified with `secret` (`whsec_...`); throws
 * `WebhookVerificationError` otherwise. The event's id is the `webhook-id` header: de-duplicate on it.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: Headers, secret: string): VerifiedWebhook {
  return verified(rawBody, headers, secret) as VerifiedWebhook;
}

/**
 * A webhook tool's call (contract guide, "Tools"), once its signature verified with the endpoint's
 * `secret`: signed exactly as events are. Its `arguments` came from the LLM, which the participant
 * talks to: check them as input from the participant. Throws `WebhookVerificationError` otherwise, and
 * for a verified body that is not a tool call (an event posted to the same endpoint).
 */
export function verifyToolCall(rawBody: string | Uint8Array, headers: Headers, secret: string): ToolCallPayload {
  const payload = verified(rawBody, headers, secret) as { type?: unknown };
  if (payload.type !== "session.tool_call") throw new WebhookVerificationError(`not a tool call: ${String(payload.type)}`);
  return payload as ToolCallPayload;
}

function verified(rawBody: string | Uint8Array, headers: Headers, secret: string): unknown {
  const read = (name: string): string => {
    if (typeof (headers as { get?: unknown }).get === "function") return (headers as { get(name: string): string | null }).get(name) ?? "";
    const value = (headers as Record<string, string | string[] | undefined>)[name];
    return Array.isArray(value) ? (value[0] ?? "") : (value ?? "");
  };
  const body = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody);
  try {
    return new Webhook(secret).verify(body, {
      "webhook-id": read("webhook-id"),
      "webhook-timestamp": read("webhook-timestamp"),
      "webhook-signature": read("webhook-signature"),
    });
  } catch (error) {
    throw new WebhookVerificationError(error instanceof Error ? error.message : "the webhook did not verify", { cause: error });
  }
}
