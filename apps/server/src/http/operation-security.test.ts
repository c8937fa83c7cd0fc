import { openapiDocumentPath } from "@dhs/contract";
import { describe, expect, it } from "vitest";
import type { MatchedOperation } from "./contract-validator.js";
import { OperationSecurity } from "./operation-security.js";

const write = { schema: { security: [{ bearerAuth: ["sessions:write"] }] } };
const either = { schema: { security: [{ bearerAuth: ["sessions:write"] }, { bearerAuth: ["sessions:read"] }] } };
const both = { schema: { security: [{ bearerAuth: ["sessions:read", "sessions:write"] }] } };
const anyKey = { schema: { security: [{ bearerAuth: [] }] } };
const documentLevel = { schema: {} };

describe("OperationSecurity.authorize", () => {
  const security = new OperationSecurity([{ bearerAuth: [] }]);
  it.each<[string, MatchedOperation | undefined, string[], ReturnType<OperationSecurity["authorize"]>]>([
    ["a key with the scope", write, ["sessions:write"], { allowed: true }],
    ["a key without the scope", write, ["sessions:read"], { allowed: false, missing: "sessions:write" }],
    ["one of two alternatives", either, ["sessions:read"], { allowed: true }],
    ["half of a requirement", both, ["sessions:read"], { allowed: false, missing: "sessions:write" }],
    ["an operation open to any key", anyKey, [], { allowed: true }],
    ["the document's requirement when the operation has none", documentLevel, [], { allowed: true }],
    ["no matched operation", undefined, ["sessions:read", "sessions:write"], { allowed: false, missing: undefined }],
    ["a match without an operation", {}, ["sessions:read", "sessions:write"], { allowed: false, missing: undefined }],
    ["an operation that opts out of security", { schema: { security: [] } }, ["sessions:read"], { allowed: false, missing: undefined }],
    ["an anonymous alternative", { schema: { security: [{}] } }, ["sessions:read"], { allowed: false, missing: undefined }],
  ])("%s", (_name, operation, granted, want) => {
    expect(security.authorize(operation, new Set(granted))).toEqual(want);
  });

  it("refuses an operation without security when the document has none", () => {
    expect(new OperationSecurity(undefined).authorize(documentLevel, new Set(["sessions:read"]))).toEqual({
      allowed: false,
      missing: undefined,
    });
  });

  it("reads the document's requirement from the contract", () => {
    expect(OperationSecurity.fromFile(openapiDocumentPath).authorize(documentLevel, new Set())).toEqual({ allowed: true });
  });
});
