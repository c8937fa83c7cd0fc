/**
 * /v1/sessions routes: translate HTTP to SessionService calls and back, nothing more.
 */
import type { ListSessionsQuery, SessionCreate, SessionList } from "@dhs/contract";
import type { Router } from "express";
import type { SessionService } from "../../domain/session-service.js";
import { principalOf } from "../authenticate.js";
import { decodeCursor, encodeCursor } from "../cursor.js";
import { exactRouter } from "./exact-router.js";

export function sessionRoutes(sessions: SessionService): Router {
  const router = exactRouter();

  router.post("/v1/sessions", async (req, res) => {
    // The validator has checked the header and the body against the contract.
    const key = req.get("Idempotency-Key") as string;
    // No body means {} (the contract makes the body optional); both fingerprint alike.
    const body = (req.body ?? {}) as SessionCreate;
    const { session, replayed } = await sessions.create(principalOf(res), key, body);
    if (replayed) res.setHeader("Idempotent-Replayed", "true");
    res.status(201).json(session);
  });

  router.get("/v1/sessions", async (req, res) => {
    // The validator has coerced limit to a number and checked status against the contract.
    const query = req.query as ListSessionsQuery;
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const page = await sessions.list(principalOf(res), { status: query.status, limit: query.limit ?? 20, after });
    const body: SessionList = { data: page.items, next_cursor: page.next ? encodeCursor(page.next) : null };
    res.json(body);
  });

  router.get("/v1/sessions/:session_id", async (req, res) => {
    res.json(await sessions.get(principalOf(res), req.params.session_id as string));
  });

  router.post("/v1/sessions/:session_id/token", async (req, res) => {
    res.json(await sessions.refreshToken(principalOf(res), req.params.session_id as string));
  });

  router.post("/v1/sessions/:session_id/end", async (req, res) => {
    res.json(await sessions.end(principalOf(res), req.params.session_id as string));
  });

  return router;
}
