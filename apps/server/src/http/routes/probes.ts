/**
 * Probes for orchestrators, outside the API and its authentication. Liveness checks no dependency, so a
 * Redis outage makes replicas unready, not restarted; readiness is the store answering.
 */
import type { Router } from "express";
import type { SessionStore } from "../../domain/ports.js";
import { exactRouter } from "./exact-router.js";

export function probeRoutes(store: SessionStore): Router {
  const router = exactRouter();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    await store.ping();
    res.json({ status: "ok" });
  });
  return router;
}
