import { describe, expect, it } from "vitest";
import { fingerprint } from "./idempotency.js";

describe("fingerprint (SHA-256 of RFC 8785 canonical JSON)", () => {
  const same: [string, unknown, unknown][] = [
    ["key order", { a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 }],
    ["number spelling", { n: 1.0, e: 1e3 }, { n: 1, e: 1000 }],
    ["no body and an empty body", undefined, {}],
    ["escaped and literal unicode", JSON.parse('{"s":"\\u00e9"}'), { s: "é" }],
  ];
  it.each(same)("ignores %s", (_name, a, b) => {
    expect(fingerprint(a)).toBe(fingerprint(b));
  });

  const different: [string, unknown, unknown][] = [
    ["a changed value", { a: 1 }, { a: 2 }],
    ["array order", { tags: ["a", "b"] }, { tags: ["b", "a"] }],
    ["a string and a number", { a: "1" }, { a: 1 }],
    ["null and absent", { a: null }, {}],
  ];
  it.each(different)("tells %s apart", (_name, a, b) => {
    expect(fingerprint(a)).not.toBe(fingerprint(b));
  });

  it("is the 256-bit digest in 43 base64url characters", () => {
    expect(fingerprint({ a: 1 })).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
