/**
 * An S3-compatible server of the test's own: versitygw on a free port over a temporary directory, with
 * one access key, which checks SigV4 signatures and presigned URLs' expiry as S3 does.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, until } from "@dhs/testkit";

export interface S3Server {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Kills it (SIGKILL) and removes its directory. */
  stop(): Promise<void>;
}

export async function startS3Server(binary: string): Promise<S3Server> {
  const dir = await mkdtemp(join(tmpdir(), "dhs-s3-"));
  const port = await freePort();
  const accessKeyId = `AK${randomBytes(8).toString("hex").toUpperCase()}`;
  const secretAccessKey = randomBytes(24).toString("base64url");
  let output = "";
  const child: ChildProcess = spawn(
    binary,
    ["--port", `127.0.0.1:${port}`, "--access", accessKeyId, "--secret", secretAccessKey, "posix", dir],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await until(
      () =>
        fetch(endpoint).then(
          () => true,
          () => undefined,
        ),
      { what: `versitygw listening (${output})`, timeoutMs: 15_000 },
    );
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return {
    endpoint,
    accessKeyId,
    secretAccessKey,
    region: "us-east-1",
    stop: async () => {
      child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    },
  };
}
