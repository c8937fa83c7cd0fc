import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { waitForOutput } from "./wait-for-output.js";

const node = (script: string) => spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "pipe"] });

describe("waitForOutput", () => {
  it("resolves when the output matches, on stdout or stderr, and keeps collecting", async () => {
    const child = node(
      'console.error("warming"); setTimeout(() => console.log("ready on 1234"), 50); setTimeout(() => console.log("later"), 100)',
    );
    const output = await waitForOutput(child, /ready on \d+/, { name: "child" });
    expect(output()).toContain("warming");
    await new Promise((resolve) => child.once("exit", resolve));
    expect(output()).toContain("later");
  });

  it("rejects with the output when the process exits first", async () => {
    await expect(waitForOutput(node('console.log("boom"); process.exit(3)'), /ready/, { name: "child" })).rejects.toThrow(
      /child exited with 3 before it was ready:\nboom/,
    );
  });

  it("rejects after the timeout", async () => {
    const child = node("setTimeout(() => {}, 5000)");
    await expect(waitForOutput(child, /ready/, { name: "slow", timeoutMs: 100 })).rejects.toThrow(/slow not ready after 100 ms/);
    child.kill();
  });
});
