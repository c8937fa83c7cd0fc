/**
 * Probes and metrics for orchestrators and monitoring, outside the API and its authentication. Liveness checks no dependency, so a
 * Redis outage makes replicas unready, not restarted; readiness is the store answering.
 */
import { Router } from "express";
import type { SessionStore } from "../../domain/ports.js";
import type { Metrics } from "../../metrics.js";

export function probeRoutes(store: SessionStore, metrics?: Metrics): Router {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    await store.ping();
    res.json({ status: "ok" });
  });
  if (metrics) {
    // Prometheus text for scrapers inside the deployment; keep it off the public ingress.
    router.get("/metrics", async (_req, res) => {
      res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
    });
  }
  return router;
}
