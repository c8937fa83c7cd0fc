/**
 * The key CLI as an operator uses it: it prints a new key once, stores only its hash, and the server
 * started with that file accepts the key with the scopes given.
 */

import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { scopeValues } from "@dhs/contract";
import { afterAll, describe, expect, it } from "vitest";
import { killServerProcesses, startServerProcess } from "../support/server-process.js";

const CLI = fileURLToPath(new URL("../../dist/cli/create-api-key.js", import.meta.url));
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "dhs-cli-"));
const file = join(dir, "keys.json");
afterAll(killServerProcesses);

describe("create-api-key", () => {
  it("prints a new key once and stores only its SHA-256", async () => {
    const { stdout, stderr } = await run(process.execPath, [
      CLI,
      "--file",
      file,
      "--account",
      "acct_cli",
      "--scopes",
      "sessions:read",
      "--id",
      "key_cli",
    ]);
    const key = stdout.trim();
    expect(key).toMatch(/^dhs_live_[A-Za-z0-9_-]{43}$/);
    expect(stderr).toContain("Added key_cli (account acct_cli, live, scopes sessions:read)");
    const stored = readFileSync(file, "utf8");
    expect(stored).not.toContain(key);
    expect(JSON.parse(stored).keys).toEqual([
      { id: "key_cli", account_id: "acct_cli", scopes: ["sessions:read"], sha256: expect.stringMatching(/^[0-9a-f]{64}$/), mode: "live" },
    ]);

    // A second key is appended, and the server accepts both with their own scopes.
    const second = (await run(process.execPath, [CLI, "--file", file, "--account", "acct_cli"])).stdout.trim();
    const test = (await run(process.execPath, [CLI, "--file", file, "--account", "acct_cli", "--mode", "test"])).stdout.trim();
    expect(test).toMatch(/^dhs_test_[A-Za-z0-9_-]{43}$/);
    const url = (await startServerProcess({ API_KEYS_FILE: file }).listening).url;
    const me = async (k: string) => (await fetch(`${url}/v1/me`, { headers: { Authorization: `Bearer ${k}` } })).json();
    expect(await me(key)).toMatchObject({ key_id: "key_cli", account_id: "acct_cli", mode: "live", scopes: ["sessions:read"] });
    // Without --scopes, every scope.
    expect(await me(second)).toMatchObject({
      account_id: "acct_cli",
      mode: "live",
      scopes: [...scopeValues],
    });
    // A test key: the same account, its own limit of open sessions (TEST_MAX_OPEN_SESSIONS).
    expect(await me(test)).toMatchObject({ account_id: "acct_cli", mode: "test", limits: { open_sessions: 5 } });
  });

  it.each([
    ["without --file", ["--account", "a"], "--file is required"],
    ["with an account id that is not allowed", ["--file", file, "--account", "a{b}"], "--account must be"],
    ["with an unknown scope", ["--file", file, "--account", "a", "--scopes", "admin"], "unknown scope admin"],
    ["with a key id that is not allowed", ["--file", file, "--account", "a", "--id", "key 1"], "--id must be"],
    ["with an unknown mode", ["--file", file, "--account", "a", "--mode", "sandbox"], "--mode must be one of live, test"],
  ])("refuses to run %s, with exit code 2", async (_name, args, message) => {
    const error = (await run(process.execPath, [CLI, ...args]).catch((e: unknown) => e)) as { code: number; stderr: string };
    expect(error.code).toBe(2);
    expect(error.stderr).toContain(message);
  });
});
