import { describe, expect, it } from "vitest";
import { shownTextProblem, toShownText } from "./shown-text.js";

describe("shownTextProblem", () => {
  it.each([
    ["plain words", "Your order shipped.", undefined],
    ["tabs and line feeds", "One\tTwo\nThree", undefined],
    ["a carriage return", "One\rTwo", "has a control character (only tab and line feed are allowed)"],
    ["NUL", "a\u0000b", "has a control character (only tab and line feed are allowed)"],
    ["a right-to-left override", "gpj.\u202eexe", "has a bidirectional embedding, override or isolate character"],
    ["an isolate", "\u2066Maya\u2069", "has a bidirectional embedding, override or isolate character"],
    ["white space and zero-width characters only", " \u200b\u00a0", "has no visible character"],
  ])("%s", (_name, text, want) => {
    expect(shownTextProblem(text)).toBe(want);
  });
});

describe("toShownText", () => {
  it("drops bidirectional controls, makes other controls spaces, trims", () => {
    expect(toShownText("  \u202eHello\u0007there\u2069 ", 100)).toBe("Hello there");
  });

  it("cuts at a grapheme's end, never inside an emoji or a letter with its marks", () => {
    const family = "👨‍👩‍👧";
    expect(toShownText(`ab${family}`, 4)).toBe("ab");
    expect(toShownText(`ab${family}`, 2 + family.length)).toBe(`ab${family}`);
    expect(toShownText("abe\u0301", 3)).toBe("ab");
    const cut = toShownText(`${"x".repeat(1999)}😀`, 2000);
    expect(cut).toBe("x".repeat(1999));
    expect(cut.isWellFormed()).toBe(true);
  });

  it("is empty when nothing visible is left", () => {
    expect(toShownText("\u202e \u200b", 100)).toBe("");
  });
});

describe("shownTextProblem, case by case", () => {
  it.each(["Hello.", "two\tcolumns", "two\nlines", "مرحبا", "👋🏽", "e\u0301"])("takes %j", (text) => {
    expect(shownTextProblem(text)).toBeUndefined();
  });

  it.each([
    ["NUL", "a\u0000", /control/],
    ["an ANSI escape", "\u001b[2J", /control/],
    ["a carriage return", "a\r", /control/],
    ["a C1 control", "a\u0085", /control/],
    ["the right-to-left override", "abc\u202edcba", /bidirectional/],
    ["zero-width characters alone", "\u200b\u200c\u200d\ufeff", /no visible/],
    ["white space alone", " \t\n\u00a0\u3000", /no visible/],
    ["a lone combining mark", "\u0301", /no visible/],
  ])("refuses %s", (_case, text, why) => {
    expect(shownTextProblem(text)).toMatch(why);
  });
});
