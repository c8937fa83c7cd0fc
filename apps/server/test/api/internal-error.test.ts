/**
 * A bug (here, a store that breaks in a way no outage explains) is answered 500 internal_error: an
 * ApiError without a stack or the error's message, logged with its request id.
 */
import { describe, expect, it } from "vitest";
import { MemorySessionStore } from "../../src/store/memory/session-store.js";
import { expectApiError, useHarness } from "../support/harness.js";

const store = new MemorySessionStore();
store.getSession = async () => {
  throw new TypeError("Cannot read properties of undefined (reading 'secret_internal_field')");
};
const h = useHarness({}, { store });

describe("GET /v1/sessions/{id}, when the server has a bug", () => {
  it("answers 500 internal_error without internals, and logs the error with the request id", async () => {
    const error = await expectApiError(await h.client().getSession(crypto.randomUUID()), 500, "internal_error");
    expect(JSON.stringify(error)).not.toContain("secret_internal_field");
    const logged = h.logs.map((line) => JSON.parse(line) as Record<string, any>).find((line) => line.msg === "request failed");
    expect(logged).toMatchObject({ request_id: error.request_id, err: { message: expect.stringContaining("secret_internal_field") } });
  });
});
