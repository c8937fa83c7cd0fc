import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DIGITAL_HUMANS, KEYS, writeOperatorFiles } from "./fixtures.js";

describe("writeOperatorFiles", () => {
  it("lists every key of KEYS by the SHA-256 of its secret, with the catalog and what the test adds", () => {
    const extra = { id: "9d3c2b1a-0f9e-4d8c-b7a6-5f4e3d2c1b0a", name: "Zed", agent_name: "zed", accounts: ["acct_b"] };
    const files = writeOperatorFiles({ accounts: [{ id: "acct_a", max_open_sessions: 2 }], digitalHumans: [extra] });
    const keys = JSON.parse(readFileSync(files.apiKeysFile, "utf8")) as { keys: { sha256: string; mode: string }[]; accounts: unknown };
    const hashes = Object.values(KEYS).map((secret) => createHash("sha256").update(secret).digest("hex"));
    expect(keys.keys.map((k) => k.sha256).sort()).toEqual(hashes.sort());
    expect(keys.keys.filter((k) => k.mode === "test")).toHaveLength(1);
    expect(keys.accounts).toEqual([{ id: "acct_a", max_open_sessions: 2 }]);
    expect(JSON.parse(readFileSync(files.digitalHumansFile, "utf8"))).toEqual({ digital_humans: [...DIGITAL_HUMANS, extra] });
  });
});
