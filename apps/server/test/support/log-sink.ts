/**
 * Every log line a test run produces, from in-process harnesses and from server processes, is also
 * written under .test-logs/ so the `logs` project can read the whole run afterwards and prove that no
 * API key or token ever reached a log (see test/logs). The test scripts empty the directory first.
 */
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const LOG_DIR = fileURLToPath(new URL("../../.test-logs/", import.meta.url));

/** A new file for one logger or process; the caller ends it. */
export function logSink(kind: string): WriteStream {
  mkdirSync(LOG_DIR, { recursive: true });
  return createWriteStream(join(LOG_DIR, `${kind}-${process.pid}-${crypto.randomUUID().slice(0, 8)}.log`));
}
