import { describe, expect, it } from "vitest";
import { AddressNotAllowedError } from "./address-policy.js";
import { classify, retryAfterMs } from "./webhook-sender.js";

describe("retryAfterMs", () => {
  it("reads seconds and HTTP dates, and ignores anything else", () => {
    expect(retryAfterMs("120")).toBe(120_000);
    expect(retryAfterMs(undefined)).toBeNull();
    expect(retryAfterMs("soon")).toBeNull();
    const inAMinute = new Date(Date.now() + 60_000).toUTCString();
    expect(retryAfterMs(inAMinute)).toBeGreaterThan(55_000);
  });
});

describe("classify", () => {
  const coded = (code: string, name = "Error") => Object.assign(new Error(code), { code, name });
  it.each([
    [new AddressNotAllowedError("10.0.0.1"), "address_not_allowed"],
    [new TypeError("fetch failed", { cause: new AddressNotAllowedError("127.0.0.1") }), "address_not_allowed"],
    [coded("UND_ERR_HEADERS_TIMEOUT"), "timeout"],
    [coded("UND_ERR_CONNECT_TIMEOUT"), "timeout"],
    [Object.assign(new Error("aborted"), { name: "TimeoutError" }), "timeout"],
    [coded("ENOTFOUND"), "dns_failed"],
    [coded("EAI_AGAIN"), "dns_failed"],
    [coded("DEPTH_ZERO_SELF_SIGNED_CERT"), "tls_failed"],
    [coded("ERR_TLS_CERT_ALTNAME_INVALID"), "tls_failed"],
    [coded("ECONNREFUSED"), "connection_failed"],
    [coded("UND_ERR_SOCKET"), "connection_failed"],
  ] as const)("%s is %s", (error, kind) => {
    expect(classify(error)).toBe(kind);
  });
});
