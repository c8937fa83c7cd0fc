import type { Logger } from "pino";
import { DependencyFaultError, DependencyUnavailableError } from "../domain/dependency-errors.js";
import type { Metrics } from "../metrics.js";
import type { ErrorLogger } from "./error-handler.js";

/** Logs a failed request once: an outage as a warning, a fault or a bug as an error, each counted. */
export function requestErrorLogger(logger: Logger, metrics: Metrics): ErrorLogger {
  return (err, requestId) => {
    if (err instanceof DependencyUnavailableError) {
      if (err.dependency === "store") metrics.redisError();
      const cause = err.cause instanceof Error ? err.cause.message : String(err.cause);
      logger.warn({ request_id: requestId, dependency: err.dependency, cause }, "dependency unavailable");
    } else if (err instanceof DependencyFaultError) {
      // Not an outage that passes: a misconfiguration or a bug, named for whoever is on call.
      metrics.dependencyFault(err.dependency);
      logger.error({ request_id: requestId, dependency: err.dependency, cause: err.message }, "dependency fault");
    } else {
      logger.error({ err, request_id: requestId }, "request failed");
    }
  };
}
