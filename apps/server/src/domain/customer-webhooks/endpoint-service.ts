/**
 * The use cases of webhook endpoints (contract guide, "Webhooks"): register (URL checked, at most
 * MAX_ENDPOINTS per account, the secret shown once), list, get, delete, rotate the secret (the previous
 * one signs beside the new one for a day), enable, and queue a test event. Another account's endpoint
 * does not exist for the caller.
 */
import { randomBytes } from "node:crypto";
import type { WebhookDeliveryList, WebhookEndpoint, WebhookEndpointCreate, WebhookEvent, WebhookEventSelector } from "@dhs/contract";
import type { Tracing } from "../../tracing/tracing.js";
import type { Principal } from "../accounts/api-keys.js";
import { AppError } from "../app-error.js";
import { outboundEvent } from "../sessions/session-events.js";
import type { EndpointSecret, UrlPolicy, WebhookEndpointRecord, WebhookStore } from "./ports.js";

const MAX_ENDPOINTS = 10;
const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface WebhookEndpointSettings {
  /** How long an event is kept while its deliveries are pending. */
  eventRetainMs: number;
}

export interface WebhookEndpointServiceDeps {
  store: WebhookStore;
  urls: UrlPolicy;
  settings: WebhookEndpointSettings;
  now?: () => Date;
  /** Called after an event was queued, so this replica delivers it without waiting for its next sweep. */
  /** A test event was queued for this endpoint. */
  onQueued?: (endpointId: string) => void;
  /** The test event's delivery is linked to the request that queued it. */
  tracing?: Tracing;
}

/** `whsec_` and 32 random bytes in base64, as Standard Webhooks defines a secret. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

export class WebhookEndpointService {
  private readonly now: () => Date;

  constructor(private readonly deps: WebhookEndpointServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async create(principal: Principal, body: WebhookEndpointCreate): Promise<WebhookEndpoint> {
    const refusal = await this.deps.urls.refusal(body.url);
    if (refusal !== null) throw new AppError("webhook_url_not_allowed", refusal);
    const record: WebhookEndpointRecord = {
      id: `we_${randomBytes(12).toString("hex")}`,
      accountId: principal.accountId,
      url: body.url,
      eventTypes: selectors(body.event_types),
      description: body.description ?? null,
      status: "enabled",
      disabledReason: null,
      createdAtMs: this.now().getTime(),
      secrets: [{ secret: newSecret(), expiresAtMs: null }],
      failingSinceMs: null,
    };
    if (!(await this.deps.store.createEndpoint(record, MAX_ENDPOINTS))) {
      throw new AppError(
        "webhook_endpoint_limit_reached",
        `This account has ${MAX_ENDPOINTS} webhook endpoints, the most allowed; delete one first.`,
      );
    }
    return { ...toView(record), secret: currentSecret(record) };
  }

  async list(principal: Principal): Promise<WebhookEndpoint[]> {
    const endpoints = await this.deps.store.listEndpoints(principal.accountId);
    return endpoints.sort((a, b) => b.createdAtMs - a.createdAtMs || (b.id > a.id ? 1 : -1)).map(toView);
  }

  async get(principal: Principal, endpointId: string): Promise<WebhookEndpoint> {
    return toView(await this.find(principal, endpointId));
  }

  async delete(principal: Principal, endpointId: string): Promise<{ id: string; deleted: true }> {
    if (!(await this.deps.store.deleteEndpoint(principal.accountId, endpointId))) throw notFound(endpointId);
    return { id: endpointId, deleted: true };
  }

  /** A new secret; the current one keeps signing for a day beside it, and any older one stops now. */
  async rotateSecret(principal: Principal, endpointId: string): Promise<WebhookEndpoint> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const endpoint = await this.find(principal, endpointId);
      const now = this.now().getTime();
      const previous = endpoint.secrets.find((s) => s.expiresAtMs === null) as EndpointSecret;
      const secrets: EndpointSecret[] = [
        { secret: newSecret(), expiresAtMs: null },
        { secret: previous.secret, expiresAtMs: now + SECRET_OVERLAP_MS },
      ];
      if (await this.deps.store.replaceSecrets(principal.accountId, endpointId, endpoint.secrets, secrets)) {
        return { ...toView(endpoint), secret: (secrets[0] as EndpointSecret).secret };
      }
    }
    throw new Error(`webhook endpoint ${endpointId}: too many concurrent rotations`);
  }

  async enable(principal: Principal, endpointId: string): Promise<WebhookEndpoint> {
    if (!(await this.deps.store.enableEndpoint(principal.accountId, endpointId))) throw notFound(endpointId);
    return this.get(principal, endpointId);
  }

  /** Queues a webhook.test event for this endpoint alone. */
  async test(principal: Principal, endpointId: string): Promise<WebhookEvent> {
    const traceparent = this.deps.tracing?.traceparent();
    const data = { endpoint_id: endpointId };
    const event = outboundEvent("webhook.test", principal.mode, this.now(), data, this.deps.settings.eventRetainMs, traceparent);
    if (!(await this.deps.store.enqueueFor(principal.accountId, endpointId, event))) throw notFound(endpointId);
    this.deps.onQueued?.(endpointId);
    return { id: event.id, ...(JSON.parse(event.body) as Omit<WebhookEvent, "id">) };
  }

  async deliveries(principal: Principal, endpointId: string, limit: number, after: string | undefined): Promise<WebhookDeliveryList> {
    await this.find(principal, endpointId);
    const page = await this.deps.store.listDeliveries(principal.accountId, endpointId, limit, after);
    return { data: page.items, next_cursor: page.next };
  }

  private async find(principal: Principal, endpointId: string): Promise<WebhookEndpointRecord> {
    const endpoint = await this.deps.store.getEndpoint(principal.accountId, endpointId);
    if (!endpoint) throw notFound(endpointId);
    return endpoint;
  }
}

/** Omitted, or `*` among others, means every event type, including types added later. */
function selectors(eventTypes: WebhookEventSelector[] | undefined): WebhookEventSelector[] {
  if (eventTypes === undefined || eventTypes.includes("*")) return ["*"];
  return eventTypes;
}

function currentSecret(endpoint: WebhookEndpointRecord): string {
  return (endpoint.secrets.find((s) => s.expiresAtMs === null) as EndpointSecret).secret;
}

export function toView(endpoint: WebhookEndpointRecord): WebhookEndpoint {
  return {
    id: endpoint.id,
    url: endpoint.url,
    event_types: endpoint.eventTypes,
    description: endpoint.description,
    status: endpoint.status,
    disabled_reason: endpoint.disabledReason,
    created_at: new Date(endpoint.createdAtMs).toISOString(),
  };
}

function notFound(endpointId: string): AppError {
  return new AppError("not_found", `No webhook endpoint ${endpointId}.`);
}
