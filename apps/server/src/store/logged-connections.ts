/**
 * The stores' two connections, each reporting its errors as operators read them: counted every time,
 * logged once per distinct error (not once per reconnect attempt), never with the address, which may
 * hold a password.
 */
import type { Logger } from "pino";
import { connectDatabase, type Database } from "./postgres/database.js";
import { connectRedis } from "./redis/client.js";

export interface ConnectionReports {
  logger: Logger;
  metrics: { redisError(): void; databaseError(): void };
}

export function connectLoggedDatabase(
  url: string,
  settings: { poolSize: number; statementTimeoutMs: number },
  { logger, metrics }: ConnectionReports,
): Database {
  let lastError = "";
  return connectDatabase({
    url,
    ...settings,
    // An idle connection's error: the pool replaces the connection.
    onError: (err) => {
      metrics.databaseError();
      if (err.message === lastError) return;
      lastError = err.message;
      logger.warn({ err: { message: err.message } }, "postgres connection error");
    },
  });
}

export function connectLoggedRedis(
  url: string,
  settings: Pick<Parameters<typeof connectRedis>[0], "mode" | "commandTimeoutMs">,
  { logger, metrics }: ConnectionReports,
): ReturnType<typeof connectRedis> {
  let lastError = "";
  return connectRedis({
    url,
    ...settings,
    onError: (err) => {
      metrics.redisError();
      if (err.message === lastError) return;
      lastError = err.message;
      logger.warn({ err: { message: err.message } }, "redis connection error");
    },
  });
}
