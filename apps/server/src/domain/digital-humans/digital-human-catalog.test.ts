import { describe, expect, it } from "vitest";
import { VOICES } from "../../../test/support/session-fixtures.js";
import { DigitalHumanCatalog } from "./digital-human-catalog.js";

const AVA = { id: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f", name: "Ava", agent_name: "ava", accounts: ["acct_b"] };
const LEO = { id: "0b8e4d1c-2a3f-4e5d-8c7b-9a0f1e2d3c4b", name: "Leo", agent_name: "leo" };

describe("DigitalHumanCatalog", () => {
  const catalog = new DigitalHumanCatalog([AVA, LEO], VOICES);

  it("shows an account only the entries it may use; its default is the first of them", () => {
    expect(catalog.forAccount("acct_a").map((d) => d.name)).toEqual(["Leo"]);
    expect(catalog.resolve(undefined, "acct_a")?.name).toBe("Leo");
    expect(catalog.resolve(undefined, "acct_b")?.name).toBe("Ava");
  });

  it("resolves an entry limited to other accounts as unknown, in any letter case for its id", () => {
    expect(catalog.resolve(AVA.id, "acct_a")).toBeUndefined();
    expect(catalog.resolve(AVA.id.toUpperCase(), "acct_b")?.name).toBe("Ava");
    expect(catalog.byIdAnyAccount(AVA.id)?.agent_name).toBe("ava");
  });

  it("gives each mode the entries marked for it, both when unmarked; the first is that mode's default", () => {
    const CHEAP = { id: "9d3c2b1a-0f9e-4d8c-b7a6-5f4e3d2c1b0a", name: "Cheap", agent_name: "cheap", modes: ["test"] as const };
    const LIVE = { ...LEO, modes: ["live"] as const };
    const both = new DigitalHumanCatalog([LIVE, CHEAP, { ...AVA, accounts: undefined }], VOICES);
    expect(both.forAccount("acct_a", "live").map((d) => d.name)).toEqual(["Leo", "Ava"]);
    expect(both.forAccount("acct_a", "test").map((d) => d.name)).toEqual(["Cheap", "Ava"]);
    expect(both.resolve(undefined, "acct_a", "test")?.name).toBe("Cheap");
    expect(both.resolve(LEO.id, "acct_a", "test")).toBeUndefined();
    expect(both.resolve(CHEAP.id, "acct_a", "live")).toBeUndefined();
  });

  it("offers its voices, the first the default of its language and of all", () => {
    expect(catalog.voices().map((v) => v.id)).toEqual(["slt", "espeak-en-us"]);
    expect([catalog.defaultVoice()?.id, catalog.defaultVoice("en")?.id, catalog.defaultVoice("fr")]).toEqual(["slt", "slt", undefined]);
    expect(catalog.voice("espeak-en-us")?.name).toBe("eSpeak");
    expect(catalog.voice("nope")).toBeUndefined();
  });

  it("is replaced as a whole on a reload, with its voices", () => {
    const reloaded = new DigitalHumanCatalog([AVA, LEO], VOICES);
    reloaded.replace([LEO], [VOICES[1] as (typeof VOICES)[number]]);
    expect(reloaded.voices().map((v) => v.id)).toEqual(["espeak-en-us"]);
    expect(reloaded.resolve(AVA.id, "acct_b")).toBeUndefined();
    expect(reloaded.forAccount("acct_b").map((d) => d.name)).toEqual(["Leo"]);
  });
});
