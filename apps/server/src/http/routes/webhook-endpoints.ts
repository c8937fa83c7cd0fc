/**
 * The /v1/webhook-endpoints operations: translate HTTP to WebhookEndpointService calls and back, nothing more.
 */
import type { ListWebhookDeliveriesQuery, WebhookEndpointCreate, WebhookEndpointList } from "@dhs/contract";
import type { Request } from "express";
import type { WebhookEndpointService } from "../../domain/customer-webhooks/endpoint-service.js";
import { principalOf } from "../authenticate.js";
import { decodeIdCursor, encodeIdCursor, ID_SHAPES } from "../cursor.js";
import type { OperationHandlers } from "../operations.js";

export function webhookEndpointOperations(
  endpoints: WebhookEndpointService,
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
  const id = (params: Request["params"]) => params.endpoint_id as string;

  return {
    // POST /v1/webhook-endpoints
    createWebhookEndpoint: async (req, res) => {
      res.status(201).json(await endpoints.create(principalOf(res), req.body as WebhookEndpointCreate));
    },

    // GET /v1/webhook-endpoints
    listWebhookEndpoints: async (_req, res) => {
      const body: WebhookEndpointList = { data: await endpoints.list(principalOf(res)) };
      res.json(body);
    },

    // GET /v1/webhook-endpoints/{endpoint_id}
    getWebhookEndpoint: async (req, res) => {
      res.json(await endpoints.get(principalOf(res), id(req.params)));
    },

    // DELETE /v1/webhook-endpoints/{endpoint_id}
    deleteWebhookEndpoint: async (req, res) => {
      res.json(await endpoints.delete(principalOf(res), id(req.params)));
    },

    // POST /v1/webhook-endpoints/{endpoint_id}/rotate-secret
    rotateWebhookEndpointSecret: async (req, res) => {
      res.json(await endpoints.rotateSecret(principalOf(res), id(req.params)));
    },

    // POST /v1/webhook-endpoints/{endpoint_id}/enable
    enableWebhookEndpoint: async (req, res) => {
      res.json(await endpoints.enable(principalOf(res), id(req.params)));
    },

    // POST /v1/webhook-endpoints/{endpoint_id}/test
    testWebhookEndpoint: async (req, res) => {
      res.status(202).json(await endpoints.test(principalOf(res), id(req.params)));
    },

    // GET /v1/webhook-endpoints/{endpoint_id}/deliveries
    listWebhookDeliveries: async (req, res) => {
      // The validator has coerced limit to a number.
      const query = req.query as ListWebhookDeliveriesQuery;
      const after = query.cursor === undefined ? undefined : decodeIdCursor(query.cursor, ID_SHAPES.logEntry);
      const page = await endpoints.deliveries(principalOf(res), id(req.params), query.limit ?? 20, after);
      res.json({ data: page.data, next_cursor: page.next_cursor === null ? null : encodeIdCursor(page.next_cursor) });
    },
  };
}
