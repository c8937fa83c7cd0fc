/**
 * GET /metrics, Prometheus text, on a port of its own (METRICS_PORT): scrapers inside the deployment
 * reach it, and the public ingress, which routes to the API port, never does. Nothing else is served
 * there; any other path or method is 404.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Metrics } from "../metrics.js";

export function metricsListener(metrics: Metrics): RequestListener {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== "GET" || req.url?.split("?")[0] !== "/metrics") {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { "Content-Type": metrics.registry.contentType }).end(text),
      () => res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" }).end("metrics unavailable\n"),
    );
  };
}
