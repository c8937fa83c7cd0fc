import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scanForSecrets } from "./secret-scan.js";

describe("scanForSecrets", () => {
  const dir = mkdtempSync(join(tmpdir(), "testkit-"));
  writeFileSync(join(dir, "clean.log"), '{"msg":"request","auth":"Bearer [redacted]"}\n{"msg":"x"}\n');
  writeFileSync(join(dir, "other.txt"), "Bearer not-scanned-because-of-its-extension\n");

  it("counts lines and finds nothing in clean logs", () => {
    expect(scanForSecrets(dir, ["hunter2hunter2"])).toEqual({ files: 1, lines: 2, findings: [] });
  });

  it.each([
    ["a known secret", "password=hunter2hunter2", "the secret"],
    ["a JWT", `token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJl`, "a JWT"],
    ["an API key", "key dhs_AAAAAAAAAAAAAAAAAAAAAAAAAAAA", "an API key"],
    ["a bearer credential", "Authorization: Bearer abcdefgh12345", "a bearer credential"],
    ["a webhook signing secret", "secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw5bq7bR+dx1s=", "a webhook signing secret"],
    ["a webhook signature", "webhook-signature: v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=", "a webhook signature"],
  ])("finds %s", (_name, line, what) => {
    const leaky = mkdtempSync(join(tmpdir(), "testkit-"));
    writeFileSync(join(leaky, "leak.log"), `ok\n${line}\n`);
    expect(scanForSecrets(leaky, ["hunter2hunter2"]).findings).toEqual([expect.stringMatching(new RegExp(`^leak.log:2: ${what}`))]);
  });
});
