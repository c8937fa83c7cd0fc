import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentCatalog, defaultCatalogFile } from "./index.js";

describe("agentCatalog", () => {
  it("reads the default catalog: Ava's agent name, and its voices with the default first", () => {
    const { agentNames, voices } = agentCatalog();
    expect(agentNames).toEqual(["ava"]);
    expect(voices[0]).toBe("slt");
    expect(defaultCatalogFile).toMatch(/digital-humans\.json$/);
  });

  it("reads each agent name once from a file of the operator's, its voices the default catalog's when it has none", () => {
    const file = join(mkdtempSync(join(tmpdir(), "catalog-")), "digital-humans.json");
    writeFileSync(file, JSON.stringify({ digital_humans: [{ agent_name: "maya" }, { agent_name: "leo" }, { agent_name: "maya" }] }));
    expect(agentCatalog(file)).toEqual({ agentNames: ["maya", "leo"], voices: agentCatalog().voices });
  });
});
