import { execFile } from "node:child_process";
import { pdfFile } from "@dhs/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { PdfTextReader } from "./pdf-text-reader.js";

// In a process of its own: the bound is for good, and this one is the test runner's.
function inChild(budgetMb: number, allocateMb: number, path = process.env.PATH ?? ""): Promise<{ bound: boolean; allocated: boolean }> {
  const code = `const { boundOwnMemory } = await import(${JSON.stringify(new URL("./memory-bound.ts", import.meta.url).href)});
    const bound = boundOwnMemory(${budgetMb});
    let allocated = true;
    try { new Uint8Array(${allocateMb} * 1048576).fill(1); } catch { allocated = false; }
    process.stdout.write(JSON.stringify({ bound, allocated }));`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["--import", "tsx", "--input-type=module", "--eval", code], { env: { PATH: path } }, (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout)),
    );
  });
}

describe("the reading process's bound on its own memory", () => {
  const path = process.env.PATH;
  afterEach(() => {
    process.env.PATH = path;
  });

  it("counts from what the process holds once started: a budget's worth is allocated, beyond it is not", async () => {
    expect(await inChild(64, 32)).toEqual({ bound: true, allocated: true });
    expect(await inChild(64, 256)).toEqual({ bound: true, allocated: false });
  });

  it("fails closed: without prlimit it says so, and the reader refuses every PDF rather than read it unbounded", async () => {
    expect(await inChild(64, 256, "/nonexistent")).toEqual({ bound: false, allocated: true });
    process.env.PATH = "/nonexistent";
    const reading = await new PdfTextReader().read(pdfFile([[{ text: "Check-out is until 11:00." }]]), "acct_a");
    expect(reading).toEqual({ kind: "refused", reason: "limits" });
  });
});
