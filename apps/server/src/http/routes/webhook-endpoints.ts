/**
 * The /v1/webhook-endpoints operations: translate HTTP to WebhookEndpointService calls and back, nothing more.
 */
import type { WebhookEndpointService } from "../../domain/customer-webhooks/endpoint-service.js";
import type { Cursors } from "../cursor.js";
import type { OperationHandlers } from "../operations.js";

export function webhookEndpointOperations(
  endpoints: WebhookEndpointService,
  cursors: Cursors,
): Pick<
  OperationHandlers,
  | "createWebhookEndpoint"
  | "listWebhookEndpoints"
  | "getWebhookEndpoint"
  | "deleteWebhookEndpoint"
  | "rotateWebhookEndpointSecret"
  | "enableWebhookEndpoint"
  | "testWebhookEndpoint"
  | "listWebhookDeliveries"
> {
  return {
    // POST /v1/webhook-endpoints
    createWebhookEndpoint: async ({ body }, principal) => ({ status: 201, body: await endpoints.create(principal, body) }),

    // GET /v1/webhook-endpoints
    listWebhookEndpoints: async (_request, principal) => ({ body: { data: await endpoints.list(principal) } }),

    // GET /v1/webhook-endpoints/{endpoint_id}
    getWebhookEndpoint: async ({ path }, principal) => ({ body: await endpoints.get(principal, path.endpoint_id) }),

    // DELETE /v1/webhook-endpoints/{endpoint_id}
    deleteWebhookEndpoint: async ({ path }, principal) => ({ body: await endpoints.delete(principal, path.endpoint_id) }),

    // POST /v1/webhook-endpoints/{endpoint_id}/rotate-secret
    rotateWebhookEndpointSecret: async ({ path }, principal) => ({ body: await endpoints.rotateSecret(principal, path.endpoint_id) }),

    // POST /v1/webhook-endpoints/{endpoint_id}/enable
    enableWebhookEndpoint: async ({ path }, principal) => ({ body: await endpoints.enable(principal, path.endpoint_id) }),

    // POST /v1/webhook-endpoints/{endpoint_id}/test
    testWebhookEndpoint: async ({ path }, principal) => ({ status: 202, body: await endpoints.test(principal, path.endpoint_id) }),

    // GET /v1/webhook-endpoints/{endpoint_id}/deliveries
    listWebhookDeliveries: async ({ path, query }, principal) => {
      const [owner, endpointId] = [principal.accountId, path.endpoint_id];
      const after = query.cursor === undefined ? undefined : cursors.deliveries.decode(owner, endpointId, query.cursor);
      const page = await endpoints.deliveries(principal, endpointId, query.limit ?? 20, after);
      const next = page.next_cursor === null ? null : cursors.deliveries.encode(owner, endpointId, page.next_cursor);
      return { body: { data: page.data, next_cursor: next } };
    },
  };
}
