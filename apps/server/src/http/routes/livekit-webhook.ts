/**
 * POST /livekit/webhook: LiveKit's signed events. Outside /v1 and its API keys; the signature over the
 * raw body is the authentication (401 when it does not verify, and nothing changes). Events about rooms
 * this service did not make are acknowledged and ignored.
 */
import express, { Router } from "express";
import { AppError } from "../../domain/app-error.js";
import type { SessionService } from "../../domain/session-service.js";
import { InvalidWebhookError, type LiveKitWebhooks, sessionRoomEvent } from "../../livekit/webhook-receiver.js";
import type { Metrics } from "../../metrics.js";

export function livekitWebhookRoutes(webhooks: LiveKitWebhooks, sessions: SessionService, maxBodyBytes: number, metrics?: Metrics): Router {
  const router = Router();
  // The signature covers the exact bytes, so the body is read raw whatever its content type.
  router.post("/livekit/webhook", express.raw({ type: () => true, limit: maxBodyBytes }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "";
    let event;
    try {
      event = await webhooks.verify(raw, req.get("Authorization"));
    } catch (error) {
      if (error instanceof InvalidWebhookError) {
        metrics?.webhook("unknown", "rejected");
        throw new AppError("unauthorized", `Webhook not verified: ${error.message}.`);
      }
      throw error;
    }
    const roomEvent = sessionRoomEvent(event);
    if (roomEvent) await sessions.onWebhook(roomEvent.id, roomEvent.accountId, roomEvent.sessionId, roomEvent.event);
    metrics?.webhook(event.event || "unknown", roomEvent ? "applied" : "ignored");
    res.json({ status: "ok" });
  });
  return router;
}
