/**
 * Probes for orchestrators, outside the API and its authentication. Liveness checks no dependency, so a
 * Redis outage makes replicas unready, not restarted; readiness is the store answering (and, in
 * production, LiveKit having accepted the service's credentials once).
 */
import type { Router } from "express";
import { exactRouter } from "./exact-router.js";

export function probeRoutes(ready: () => Promise<void>): Router {
  const router = exactRouter();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    await ready();
    res.json({ status: "ok" });
  });
  return router;
}
