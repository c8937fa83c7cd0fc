/**
 * A webhook endpoint as Redis holds it: a hash of url, types, description, status, disabled_reason,
 * created, secrets and failing_since (the health fields only while they have a value).
 */
import type { EndpointSecret, WebhookEndpointRecord } from "../../domain/customer-webhooks/ports.js";
import { routeOf } from "./keys.js";

/** The hash's fields and values, in HSET's order. */
export function endpointFields(endpoint: WebhookEndpointRecord): string[] {
  const fields: string[] = ["url", endpoint.url, "types", routeOf(endpoint.eventTypes), "status", endpoint.status];
  fields.push("created", String(endpoint.createdAtMs), "secrets", JSON.stringify(endpoint.secrets));
  if (endpoint.description !== null) fields.push("description", endpoint.description);
  if (endpoint.disabledReason !== null) fields.push("disabled_reason", endpoint.disabledReason);
  if (endpoint.failingSinceMs !== null) fields.push("failing_since", String(endpoint.failingSinceMs));
  return fields;
}

export function decodeEndpoint(accountId: string, id: string, hash: Record<string, string>): WebhookEndpointRecord {
  return {
    id,
    accountId,
    url: hash.url as string,
    eventTypes: (hash.types as string).split(" ") as WebhookEndpointRecord["eventTypes"],
    description: hash.description ?? null,
    status: hash.status === "disabled" ? "disabled" : "enabled",
    disabledReason: (hash.disabled_reason as WebhookEndpointRecord["disabledReason"] | undefined) ?? null,
    createdAtMs: Number(hash.created),
    secrets: JSON.parse(hash.secrets as string) as EndpointSecret[],
    failingSinceMs: hash.failing_since === undefined ? null : Number(hash.failing_since),
  };
}
