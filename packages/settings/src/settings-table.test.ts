import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { choice, decimal, text, url } from "./builders.js";
import { settingsTable, settingsTableCli } from "./settings-table.js";

const DECLARED = {
  LEVEL: choice({ default: "info", values: ["info", "debug"] }, "How much is logged."),
  API: url({ default: undefined, protocols: ["https:"] }, "Where the API is."),
  KEY: text({ default: "devkey", dev: "`devkey`" }, "The key."),
  SHARE: decimal({ default: 0.7, above: 0, max: 1 }, "A share."),
};
const MARKERS = { start: "<!-- t:start -->", end: "<!-- t:end -->", command: "pnpm docs:config" };

describe("settingsTable", () => {
  it("shows each variable's default, what it accepts and what it does", () => {
    expect(settingsTable(DECLARED).split("\n").slice(2)).toEqual([
      "| `LEVEL` | `info` | `info`, `debug` | How much is logged. |",
      "| `API` | none | `https://` URL | Where the API is. |",
      "| `KEY` | *dev*: `devkey` | text | The key. |",
      "| `SHARE` | `0.7` | number above 0, at most 1 | A share. |",
    ]);
  });

  it("writes the table between the markers, then finds it current; a stale one fails the check", () => {
    const file = join(mkdtempSync(join(tmpdir(), "settings-table-")), "operators.md");
    writeFileSync(file, `# Operators\n${MARKERS.start}\nold\n${MARKERS.end}\nafter\n`);
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    expect(settingsTableCli(DECLARED, MARKERS, ["--check", file])).toBe(1);
    expect(errors).toHaveBeenLastCalledWith(`${file}: the configuration table is stale; run pnpm docs:config`);
    expect(settingsTableCli(DECLARED, MARKERS, ["--write", file])).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(`# Operators\n${MARKERS.start}\n${settingsTable(DECLARED)}\n${MARKERS.end}\nafter\n`);
    expect(settingsTableCli(DECLARED, MARKERS, ["--check", file])).toBe(0);
    writeFileSync(file, "no markers\n");
    expect(settingsTableCli(DECLARED, MARKERS, ["--check", file])).toBe(1);
    expect(settingsTableCli(DECLARED, MARKERS, ["--wrong"])).toBe(2);
    errors.mockRestore();
  });
});
