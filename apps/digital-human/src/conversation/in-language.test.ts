import { describe, expect, it } from "vitest";
import { inLanguage } from "./in-language.js";

describe("inLanguage", () => {
  it("leaves an English persona's instructions as they are", () => {
    expect(inLanguage("You are Ava.", "en")).toBe("You are Ava.");
    expect(inLanguage("You are Ava.", "en-GB")).toBe("You are Ava.");
  });

  it("tells the LLM to answer in the persona's language, by its English name and its tag", () => {
    expect(inLanguage("You are Sofía.", "es")).toBe(
      "You are Sofía.\n\nAlways answer in Spanish (es), whatever language the instructions are written in.",
    );
    expect(inLanguage("x", "pt-BR")).toContain("Always answer in Brazilian Portuguese (pt-BR)");
  });

  it("names a tag Intl does not know by the tag itself", () => {
    expect(inLanguage("x", "zz")).toContain("Always answer in zz (zz)");
  });
});
