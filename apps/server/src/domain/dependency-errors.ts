/**
 * How a dependency (the store, LiveKit) fails, as every layer sees it: the adapters throw these, the
 * domain lets them through or reacts to them, and the HTTP layer maps them (503 or 500).
 */

/** The service's dependencies: Redis (or memory), PostgreSQL (history), LiveKit and the recordings' object store. */
export type Dependency = "store" | "database" | "livekit" | "recording_storage";

/** A dependency is down: the request changed nothing and may be retried (mapped to 503). */
export class DependencyUnavailableError extends Error {
  override readonly name = "DependencyUnavailableError";
  constructor(
    readonly dependency: Dependency,
    options?: { cause?: unknown },
  ) {
    super(`${dependency} unavailable`, options);
  }
}

/**
 * A dependency answered, but not as it should: LiveKit refusing our credentials or our request, Redis
 * refusing a command or holding a record we cannot read. Retrying cannot help, so it is no outage: the
 * request fails with 500, and the error is logged and counted so that someone fixes it.
 */
export class DependencyFaultError extends Error {
  override readonly name: string = "DependencyFaultError";
  constructor(
    readonly dependency: Dependency,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A fault in what was sent, not in the dependency: PostgreSQL refusing a value it cannot hold (a data
 * exception, a constraint, a limit). Retrying the same value cannot help, but the same statement without
 * it would pass: the history writer sets such a record aside and writes the rest.
 */
export class ValueRefusedError extends DependencyFaultError {
  override readonly name = "ValueRefusedError";
}
