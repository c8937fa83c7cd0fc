/**
 * The PostgreSQL connection pool (node-postgres) and how its failures reach the domain: the database
 * unreachable for now (refused or lost connections, a statement or connection attempt past its timeout,
 * a server starting or shutting down) is DependencyUnavailableError (503, retry later); anything else a
 * fault to fix (500). Every statement is named, so each connection prepares it once.
 */
import pg from "pg";
import { DependencyFaultError, DependencyUnavailableError, ValueRefusedError } from "../../domain/dependency-errors.js";

export interface DatabaseOptions {
  url: string;
  poolSize: number;
  statementTimeoutMs: number;
  /** Called with each error of an idle connection (the pool replaces it). */
  onError?: (error: Error) => void;
}

export type Database = pg.Pool;

export function connectDatabase(options: DatabaseOptions): Database {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize,
    connectionTimeoutMillis: options.statementTimeoutMs,
    // The server cancels a statement past it; the client stops waiting a little later.
    statement_timeout: options.statementTimeoutMs,
    query_timeout: options.statementTimeoutMs + 500,
    idleTimeoutMillis: 30_000,
    application_name: "dhs-server",
  });
  pool.on("error", (error) => options.onError?.(error));
  return pool;
}

// SQLSTATE classes and codes that mean "not now": connection exceptions (08), insufficient resources
// (53), operator intervention (57P01 admin shutdown, 57P03 cannot connect now), a statement cancelled by
// its timeout (57014), serialization failures and deadlocks (40001, 40P01), and a database that takes no
// connections for now (55000: `ALLOW_CONNECTIONS false`, as an operator sets during maintenance).
const TRANSIENT_STATE = /^(08|53|55000|57P0[1-3]|57014|40001|40P01)/;
// SQLSTATE classes that refuse a value, not the statement: data exceptions (22, e.g. 22P05 for U+0000 in
// jsonb), integrity constraints (23), program limits (54, a row too large).
const REFUSED_VALUE = /^(22|23|54)/;
const UNREACHABLE =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/;

/** Whether a failure is PostgreSQL being unreachable or busy for now (503), as opposed to a fault (500). */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === "string" && (TRANSIENT_STATE.test(code) || /^E[A-Z]+$/.test(code))) return true;
  return UNREACHABLE.test(error.message);
}

/** Runs a database operation, its failures as the domain knows them (dependency "database"). */
export async function guardDatabase<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    // Another dependency's failure within the operation (Redis's, inside a transaction) stays its own.
    if (error instanceof DependencyUnavailableError || error instanceof DependencyFaultError) throw error;
    if (isDatabaseUnavailable(error)) throw new DependencyUnavailableError("database", { cause: error });
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === "string" && REFUSED_VALUE.test(code))
      throw new ValueRefusedError("database", `PostgreSQL: ${message}`, { cause: error });
    throw new DependencyFaultError("database", `PostgreSQL: ${message}`, { cause: error });
  }
}

/** Runs `work` in one transaction on one connection of the pool: committed if it resolves, rolled back if not. */
export async function transaction<T>(db: Database, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  // A connection lost while checked out is reported on the client too; unheard, it would end the process.
  let failure: Error | undefined;
  const lost = (error: Error) => {
    failure = error;
  };
  client.on("error", lost);
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
    // A failed ROLLBACK needs nothing more: the connection is released with the failure, so the pool
    // destroys it, and PostgreSQL rolls back a transaction whose connection closed.
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.off("error", lost);
    // A connection that failed mid-transaction is not handed out again.
    client.release(failure);
  }
}
