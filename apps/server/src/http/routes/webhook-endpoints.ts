/**
 * /v1/webhook-endpoints routes: translate HTTP to WebhookEndpointService calls and back, nothing more.
 */
import type { ListWebhookDeliveriesQuery, WebhookEndpointCreate, WebhookEndpointList } from "@dhs/contract";
import type { Router } from "express";
import type { WebhookEndpointService } from "../../domain/webhook-endpoints.js";
import { principalOf } from "../authenticate.js";
import { decodeIdCursor, encodeIdCursor, ID_SHAPES } from "../cursor.js";
import { exactRouter } from "./exact-router.js";

export function webhookEndpointRoutes(endpoints: WebhookEndpointService): Router {
  const router = exactRouter();
  const id = (params: Record<string, string | undefined>) => params.endpoint_id as string;

  router.post("/v1/webhook-endpoints", async (req, res) => {
    res.status(201).json(await endpoints.create(principalOf(res), req.body as WebhookEndpointCreate));
  });

  router.get("/v1/webhook-endpoints", async (_req, res) => {
    const body: WebhookEndpointList = { data: await endpoints.list(principalOf(res)) };
    res.json(body);
  });

  router.get("/v1/webhook-endpoints/:endpoint_id", async (req, res) => {
    res.json(await endpoints.get(principalOf(res), id(req.params)));
  });

  router.delete("/v1/webhook-endpoints/:endpoint_id", async (req, res) => {
    res.json(await endpoints.delete(principalOf(res), id(req.params)));
  });

  router.post("/v1/webhook-endpoints/:endpoint_id/rotate-secret", async (req, res) => {
    res.json(await endpoints.rotateSecret(principalOf(res), id(req.params)));
  });

  router.post("/v1/webhook-endpoints/:endpoint_id/enable", async (req, res) => {
    res.json(await endpoints.enable(principalOf(res), id(req.params)));
  });

  router.post("/v1/webhook-endpoints/:endpoint_id/test", async (req, res) => {
    res.status(202).json(await endpoints.test(principalOf(res), id(req.params)));
  });

  router.get("/v1/webhook-endpoints/:endpoint_id/deliveries", async (req, res) => {
    // The validator has coerced limit to a number.
    const query = req.query as ListWebhookDeliveriesQuery;
    const after = query.cursor === undefined ? undefined : decodeIdCursor(query.cursor, ID_SHAPES.logEntry);
    const page = await endpoints.deliveries(principalOf(res), id(req.params), query.limit ?? 20, after);
    res.json({ data: page.data, next_cursor: page.next_cursor === null ? null : encodeIdCursor(page.next_cursor) });
  });

  return router;
}
