/**
 * A PostgreSQL server of a test's own, in a temporary folder on a free port, for the tests that stop or
 * kill it (the machine's server is shared: never those). initdb and pg_ctl of the machine's PostgreSQL
 * (PG_BIN, else the newest /usr/lib/postgresql/<version>/bin); PostgreSQL refuses to run as root, so as
 * root they run as the `postgres` user. Trust authentication on loopback only, fsync off (nothing here
 * outlives the test). Stopped with pg_ctl, immediately when a test means a crash.
 */
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

export interface PostgresServer {
  /** The `postgres` database's URL (make others with createDatabase and this as the admin URL). */
  url: string;
  port: number;
  /** Starts it again (after stop or kill), resolving once it accepts connections. */
  start(): Promise<void>;
  /** Stops it: `fast` ends every session cleanly, `immediate` is a crash (recovery at the next start). */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Stops it and deletes its folder. */
  destroy(): Promise<void>;
}

function binDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  if (!versions[0]) throw new Error("no PostgreSQL server binaries: install postgresql, or set PG_BIN");
  return join(root, versions[0], "bin");
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = binDir();
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "dhs-postgres-"));
  const data = join(dir, "data");
  const port = await freePort();
  if (root) chownSync(dir, ...(await postgresIds()));
  // As the postgres user when root (PostgreSQL refuses root), else as whoever runs the test.
  const as = (command: string, args: string[]) =>
    root ? run("runuser", ["-u", "postgres", "--", join(bin, command), ...args]) : run(join(bin, command), args);
  await as("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const server: PostgresServer = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start: async () => {
      await as("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "30", "start"]);
    },
    stop: async (mode = "fast") => {
      await as("pg_ctl", ["-D", data, "-m", mode, "-w", "stop"]).catch(() => undefined);
    },
    destroy: async () => {
      await server.stop("immediate");
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

async function postgresIds(): Promise<[number, number]> {
  const { stdout } = await run("id", ["-u", "postgres"]);
  const { stdout: group } = await run("id", ["-g", "postgres"]);
  return [Number(stdout.trim()), Number(group.trim())];
}
