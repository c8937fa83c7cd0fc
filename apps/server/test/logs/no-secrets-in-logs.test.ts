/**
 * Runs after the other tiers (see package.json): reads every log line the run wrote (in-process
 * harnesses and server processes, .test-logs/) and finds no API key and no token in any of them.
 * Tokens are JWTs (participant tokens, LiveKit's webhook signatures, the SDK's API tokens); keys are
 * `dhs_` secrets, the run's known ones by value and any other by shape.
 */
import { scanForSecrets } from "@dhs/testkit";
import { describe, expect, it } from "vitest";
import { KEYS } from "../support/harness.js";
import { LOG_DIR } from "../support/log-sink.js";

const KNOWN_KEYS = [...Object.values(KEYS), "dhs_dev_insecure_local_key", "dhs_test_dev_insecure_local_key", "dhs_test_two_processes"];

describe("the logs of the whole test run", () => {
  it("hold no API key and no token, in any line", () => {
    const scan = scanForSecrets(LOG_DIR, KNOWN_KEYS);
    console.log(`log scan: ${scan.lines} lines in ${scan.files} files, ${scan.findings.length} secrets`);
    // A scan that saw nothing proves nothing: the suites before it log thousands of lines.
    expect(scan.files).toBeGreaterThan(0);
    expect(scan.lines).toBeGreaterThan(1000);
    expect(scan.findings.slice(0, 20)).toEqual([]);
  });
});
