/**
 * The Express application: request ids first, then the routes, then one 404 and one error handler, so
 * every answer, from every route including unknown ones, carries X-Request-ID and errors are ApiErrors.
 */
import express, { type Express } from "express";
import { type ErrorLogger, errorHandler, notFound } from "./error-handler.js";
import { requestId } from "./request-id.js";

export interface AppDependencies {
  logError: ErrorLogger;
}

export function createApp(deps: AppDependencies): Express {
  const app = express();
  app.disable("x-powered-by");
  app.disable("etag");
  app.set("query parser", "simple");

  app.use(requestId);

  // Liveness: the process serves HTTP. It checks no dependency on purpose, so a Redis outage makes
  // replicas unready (readyz), not restarted.
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });

  app.use(notFound);
  app.use(errorHandler(deps.logError));
  return app;
}
