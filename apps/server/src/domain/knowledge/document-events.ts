/**
 * `document.ready` and `document.failed`, queued for each of the owner's enabled endpoints that takes
 * them. A document's change and its events are in two stores (PostgreSQL and Redis), so the processor
 * queues the events just before it stores the change, with an id derived from the document and its
 * outcome: one that died between the two is followed by another that queues them again under the same
 * id (the store keeps one delivery per endpoint and event id), so an event is never lost. A document
 * deleted while it was processed may still have its event delivered.
 */
import { createHash } from "node:crypto";
import type { WebhookEventType } from "@dhs/contract";
import { modeOfOwner } from "../accounts/api-keys.js";
import type { OutboundEvent, WebhookStore } from "../customer-webhooks/ports.js";
import { outboundEvent } from "../sessions/session-events.js";
import { documentView } from "./document-service.js";
import type { DocumentRecord } from "./ports.js";

export interface DocumentEventDeps {
  webhooks: Pick<WebhookStore, "listEndpoints" | "enqueueFor">;
  /** How long an event is kept while deliveries of it are pending. */
  eventRetainMs: number;
  /** Called after events were queued for an endpoint, so this replica delivers them at once. */
  onQueued?: (endpointId: string) => void;
}

/** Queues the event of a document that became ready or failed; answers how many endpoints take it. */
export async function queueDocumentEvent(deps: DocumentEventDeps, record: DocumentRecord): Promise<number> {
  if (record.status === "processing") return 0;
  const type: WebhookEventType = record.status === "ready" ? "document.ready" : "document.failed";
  const endpoints = await deps.webhooks.listEndpoints(record.owner);
  const taking = endpoints.filter(
    (endpoint) => endpoint.status === "enabled" && (endpoint.eventTypes.includes("*") || endpoint.eventTypes.includes(type)),
  );
  if (taking.length === 0) return 0;
  const event: OutboundEvent = {
    ...outboundEvent(type, modeOfOwner(record.owner), new Date(record.updated_at), documentView(record), deps.eventRetainMs),
    id: eventIdOf(record, type),
  };
  for (const endpoint of taking) {
    if (await deps.webhooks.enqueueFor(record.owner, endpoint.id, event)) deps.onQueued?.(endpoint.id);
  }
  return taking.length;
}

/** `evt_` and 32 hex digits, the same for the same document and outcome. */
function eventIdOf(record: DocumentRecord, type: WebhookEventType): string {
  return `evt_${createHash("sha256").update(`${record.owner}\n${record.id}\n${type}`).digest("hex").slice(0, 32)}`;
}
