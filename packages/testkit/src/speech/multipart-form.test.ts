import { describe, expect, it } from "vitest";
import { formBoundary, formField, parseMultipart } from "./multipart-form.js";

const B = "----formdata-undici-0123456789";

function body(...lines: (string | Buffer)[]): Buffer {
  return Buffer.concat(lines.map((line) => (typeof line === "string" ? Buffer.from(line, "latin1") : line)));
}

describe("formBoundary", () => {
  it.each([
    [`multipart/form-data; boundary=${B}`, B],
    ['Multipart/Form-Data; charset=utf-8; boundary="a b:c"', "a b:c"],
    ["application/json", undefined],
    ["multipart/form-data", undefined],
    [`multipart/form-data; boundary=${"x".repeat(71)}`, undefined],
    [undefined, undefined],
  ])("%s → %s", (contentType, want) => {
    expect(formBoundary(contentType)).toBe(want);
  });
});

describe("parseMultipart", () => {
  it("reads fields and a binary file as undici's FormData writes them", async () => {
    const form = new FormData();
    form.append("model", "whisper-1");
    form.append("file", new File([new Uint8Array([0, 13, 10, 45, 45, 255])], 'say "hi".wav', { type: "audio/wav" }));
    form.append("language", "en");
    const request = new Request("http://localhost", { method: "POST", body: form });
    const boundary = formBoundary(request.headers.get("content-type") ?? "");
    const parts = parseMultipart(Buffer.from(await request.arrayBuffer()), boundary ?? "");
    expect(parts.map((p) => p.name)).toEqual(["model", "file", "language"]);
    expect(formField(parts, "model")).toBe("whisper-1");
    expect(formField(parts, "file")).toBeUndefined();
    expect(parts[1]).toMatchObject({ filename: 'say "hi".wav', contentType: "audio/wav" });
    expect([...(parts[1]?.data ?? [])]).toEqual([0, 13, 10, 45, 45, 255]);
  });

  it("skips a preamble and takes an empty form", () => {
    expect(parseMultipart(body("ignored preamble\r\n", `--${B}--\r\n`), B)).toEqual([]);
    const parts = parseMultipart(body(`--${B}\r\n`, 'Content-Disposition: form-data; name="a"\r\n\r\n', "1", `\r\n--${B}--`), B);
    expect(formField(parts, "a")).toBe("1");
  });

  it.each([
    ["no boundary at all", body("just bytes"), /without its boundary/],
    ["a boundary followed by junk", body(`--${B}xx`), /not followed by a line break/],
    ["headers that never end", body(`--${B}\r\nContent-Disposition: form-data; name="a"\r\n`, "x".repeat(20_000)), /headers never end/],
    ["no closing boundary", body(`--${B}\r\n`, 'Content-Disposition: form-data; name="a"\r\n\r\n', "value"), /cut short/],
    ["a part with no headers", body(`--${B}\r\n\r\nvalue\r\n--${B}--`), /not form-data/],
    ["a part without a name", body(`--${B}\r\n`, "Content-Disposition: form-data\r\n\r\nv\r\n", `--${B}--`), /without a name/],
  ])("refuses %s", (_name, bytes, message) => {
    expect(() => parseMultipart(bytes, B)).toThrow(message);
  });

  it("refuses more parts than any real request has", () => {
    const part = `--${B}\r\nContent-Disposition: form-data; name="p"\r\n\r\nv\r\n`;
    expect(() => parseMultipart(body(part.repeat(65), `--${B}--`), B)).toThrow(/more than 64 parts/);
    expect(parseMultipart(body(part.repeat(64), `--${B}--`), B)).toHaveLength(64);
  });
});
