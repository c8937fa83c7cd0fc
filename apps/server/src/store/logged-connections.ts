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

/** Counts every error of a connection and logs each distinct one once, as `message`, without the address. */
function reported(message: string, count: () => void, logger: Logger): (err: Error) => void {
  let lastError = "";
  return (err) => {
    count();
    if (err.message === lastError) return;
    lastError = err.message;
    logger.warn({ err: { message: err.message } }, message);
  };
}

export function connectLoggedDatabase(
  url: string,
  settings: { poolSize: number; statementTimeoutMs: number },
  { logger, metrics }: ConnectionReports,
): Database {
  // An idle connection's error: the pool replaces the connection.
  return connectDatabase({ url, ...settings, onError: reported("postgres connection error", () => metrics.databaseError(), logger) });
}

export function connectLoggedRedis(
  url: string,
  settings: Pick<Parameters<typeof connectRedis>[0], "mode" | "commandTimeoutMs">,
  { logger, metrics }: ConnectionReports,
): ReturnType<typeof connectRedis> {
  return connectRedis({ url, ...settings, onError: reported("redis connection error", () => metrics.redisError(), logger) });
}
