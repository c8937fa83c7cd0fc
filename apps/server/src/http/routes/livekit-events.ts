/**
 * POST /livekit/webhook: LiveKit's signed events. Outside /v1 and its API keys; the signature over the
 * raw body is the authentication (401 when it does not verify, and nothing changes). The signature's JWT
 * is checked once, before the body is read, so an unsigned or forged delivery is refused without reading
 * it; the body's hash is then compared with the one it signs.
 * A refusal says only that the webhook was not verified; why is written to the request's log line. Events
 * about rooms this service did not make are acknowledged and ignored.
 */
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { AppError } from "../../domain/app-error.js";
import type { SessionService } from "../../domain/sessions/session-service.js";
import {
  InconsistentRoomError,
  InvalidWebhookError,
  type LiveKitEvent,
  type LiveKitEventReceiver,
  sessionRoomEvent,
} from "../../livekit/event-receiver.js";
import type { Metrics } from "../../metrics.js";
import { setRefusalReason } from "../request-logger.js";
import { exactRouter } from "./exact-router.js";

export function livekitEventRoutes(
  webhooks: LiveKitEventReceiver,
  sessions: SessionService,
  maxBodyBytes: number,
  metrics?: Metrics,
): Router {
  const router = exactRouter();
  const refuse = (res: Response, error: unknown): never => {
    if (!(error instanceof InvalidWebhookError)) throw error;
    metrics?.webhook("unknown", "rejected");
    setRefusalReason(res, error.message);
    throw new AppError("unauthorized", "Webhook not verified.");
  };
  const signed = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    res.locals.signedSha256 = await webhooks.checkAuthorization(req.get("Authorization")).catch((error: unknown) => refuse(res, error));
    next();
  };
  // The signature covers the exact bytes, so the body is read raw whatever its content type.
  router.post("/livekit/webhook", signed, express.raw({ type: () => true, limit: maxBodyBytes }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let event: LiveKitEvent;
    try {
      event = webhooks.parse(raw, signedSha256(res));
    } catch (error) {
      return refuse(res, error);
    }
    let roomEvent: ReturnType<typeof sessionRoomEvent>;
    try {
      roomEvent = sessionRoomEvent(event);
    } catch (error) {
      if (!(error instanceof InconsistentRoomError)) throw error;
      // Signed, so LiveKit's secret made it: acknowledged (a retry would not change it), applied to no
      // session, and said in the request's log line as a warning.
      metrics?.webhook(event.event || "unknown", "rejected");
      setRefusalReason(res, error.message);
      res.json({ status: "ok" });
      return;
    }
    if (roomEvent) await sessions.onLiveKitEvent(roomEvent.id, roomEvent.accountId, roomEvent.sessionId, roomEvent.event);
    metrics?.webhook(event.event || "unknown", roomEvent ? "applied" : "ignored");
    res.json({ status: "ok" });
  });
  return router;
}

/** The body's hash the delivery's signature covers, once `signed` verified the signature. */
function signedSha256(res: Response): string {
  const sha256: unknown = res.locals.signedSha256;
  if (typeof sha256 !== "string") throw new Error("LiveKit webhook body read before its signature was checked");
  return sha256;
}
