import type { ApiKeyOperationId } from "@dhs/contract";
import { describe, expectTypeOf, it } from "vitest";
import { type ApiError, createClient, type DhsClient, type Principal, type Session, type SessionList, unwrap } from "../src/index.js";

const client = createClient({ baseUrl: "http://dhs.test", apiKey: "dhs_x" });

describe("what the types promise", () => {
  it("has one method per operation an API key calls, named by its operationId, and raw", () => {
    expectTypeOf<keyof DhsClient>().toEqualTypeOf<ApiKeyOperationId | "raw">();
    expectTypeOf<"appendTranscriptSegments">().not.toExtend<keyof DhsClient>();
  });

  it("types each operation's data and error from the contract", async () => {
    const created = await client.createSession();
    expectTypeOf(created.data).toEqualTypeOf<Session | undefined>();
    expectTypeOf(created.error).toEqualTypeOf<ApiError | undefined>();
    expectTypeOf((await client.getSession("id")).data).toEqualTypeOf<Session | undefined>();
    expectTypeOf((await client.listSessions()).data).toEqualTypeOf<SessionList | undefined>();
    expectTypeOf((await client.refreshSessionToken("id")).data).toEqualTypeOf<Session | undefined>();
    expectTypeOf((await client.endSession("id")).data).toEqualTypeOf<Session | undefined>();
    expectTypeOf((await client.getPrincipal()).data).toEqualTypeOf<Principal | undefined>();
  });

  it("narrows data once error is ruled out", async () => {
    const { data, error } = await client.getSession("id");
    if (error) {
      expectTypeOf(error.code).toEqualTypeOf<string>();
      return;
    }
    expectTypeOf(data.participant_token).toEqualTypeOf<string | null>();
    expectTypeOf(data.status).toEqualTypeOf<"created" | "active" | "completed" | "failed" | "cancelled">();
  });

  it("unwrap gives the success type", async () => {
    expectTypeOf(unwrap(await client.getSession("id"))).toEqualTypeOf<Session>();
  });

  it("refuses what the contract refuses", () => {
    // @ts-expect-error SessionCreate allows no other fields
    void client.createSession({ participant_name: "x" });
    // @ts-expect-error tags are strings
    void client.createSession({ tags: [1] });
    // @ts-expect-error status must be one of the five states
    void client.listSessions({ status: "running" });
    // @ts-expect-error the id is required
    void client.getSession();
  });
});
