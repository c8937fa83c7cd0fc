import { describe, expect, it } from "vitest";
import { keptString, MAX_FOREIGN_DEPTH, parseForeignJson, readForeignJson } from "./foreign-json.js";

const nested = (depth: number) => `${"[".repeat(depth)}1${"]".repeat(depth)}`;

describe("JSON from outside", () => {
  it("is read up to MAX_FOREIGN_DEPTH levels, and refused beyond without overflowing the stack", () => {
    expect(readForeignJson(nested(MAX_FOREIGN_DEPTH)).ok).toBe(true);
    expect(readForeignJson(nested(MAX_FOREIGN_DEPTH + 1))).toEqual({ ok: false, problem: "too_deep" });
    expect(readForeignJson(`{"result":${nested(5000)}}`)).toEqual({ ok: false, problem: "too_deep" });
    expect(readForeignJson(`{"a":${'{"a":'.repeat(100_000)}1${"}".repeat(100_001)}`).ok).toBe(false);
    expect(readForeignJson("{not json")).toEqual({ ok: false, problem: "not_json" });
  });

  it("keeps what PostgreSQL's jsonb can hold: NUL and lone surrogates in strings and keys made U+FFFD", () => {
    const read = readForeignJson('{"result":"a\\u0000b","k\\ud800":["\\udc00x","😀"],"n":1.5,"t":true,"z":null}');
    expect(read).toEqual({ ok: true, value: { result: "a\uFFFDb", "k\uFFFD": ["\uFFFDx", "😀"], n: 1.5, t: true, z: null } });
    expect(JSON.stringify(read)).not.toMatch(/\\u0000|\\ud[89a-f]/i);
    expect(keptString("ok 😀")).toBe("ok 😀");
  });

  it("keeps a key __proto__ a key, never the object's prototype", () => {
    const read = readForeignJson('{"__proto__":{"polluted":true}}');
    expect(read.ok && Object.getPrototypeOf(read.value)).toBe(Object.prototype);
    expect(read.ok && Object.keys(read.value as object)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("is parsed as it is when the caller cleans only part of it", () => {
    expect(parseForeignJson('"a\\u0000"')).toEqual({ ok: true, value: "a\u0000" });
  });
});
