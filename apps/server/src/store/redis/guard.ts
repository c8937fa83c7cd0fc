/**
 * How a Redis failure reaches the domain: Redis unreachable for now (a closed connection, a timeout, a
 * cluster failing over) becomes DependencyUnavailableError (503, retry later); anything else, a command
 * Redis refuses or a record or script reply we cannot read, DependencyFaultError (500). Every Redis store
 * runs its operations through `guard`.
 */
import { type ChainableCommander, ReplyError } from "ioredis";
import { DependencyFaultError, DependencyUnavailableError } from "../../domain/dependency-errors.js";

// Replies that mean "not now" rather than "wrong": the server is loading, failing over or read-only.
const TRANSIENT_REPLY = /^(LOADING|BUSY|READONLY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|MOVED|ASK)\b/;

// What ioredis says when Redis cannot be reached in time: closed or unwritable connections (no offline
// queue), command timeouts, a cluster without its nodes. Only these, and transient replies, are outages.
const UNREACHABLE =
  /^(Connection is closed|Stream isn't writeable|Cluster isn't ready|Command timed out|Node is disconnected|Cluster is disconnect|None of startup nodes|Too many Cluster redirections|Failed to refresh slots cache|No master node|connect ETIMEDOUT|timeout)/;
const UNREACHABLE_NAMES = new Set(["MaxRetriesPerRequestError", "ClusterAllFailedError"]);

/** Whether a failure is Redis being unreachable for now (503), as opposed to a fault to fix (500). */
export function isRedisUnavailable(error: unknown): boolean {
  if (error instanceof ReplyError) return TRANSIENT_REPLY.test((error as Error).message);
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  return UNREACHABLE_NAMES.has(error.name) || UNREACHABLE.test(error.message) || (typeof code === "string" && /^E[A-Z]+$/.test(code));
}

/**
 * Runs a store operation: Redis unreachable becomes DependencyUnavailableError (503, retry later);
 * anything else (a command Redis refuses, a record or script reply we cannot read) DependencyFaultError.
 */
export async function guard<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isRedisUnavailable(error)) throw new DependencyUnavailableError("store", { cause: error });
    throw new DependencyFaultError("store", `Redis: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/**
 * Runs a MULTI: ioredis resolves `exec` even when a command in it failed (WRONGTYPE, OOM), each reply
 * beside its error, so without this a failed write would pass for a done one. The first error is thrown.
 */
export async function execTransaction(multi: ChainableCommander): Promise<void> {
  const replies = await multi.exec();
  // Only a WATCH makes exec resolve null, and these transactions watch nothing.
  if (replies === null) throw new Error("Redis discarded the transaction");
  for (const [error] of replies) if (error) throw error;
}
