/**
 * The digital human catalog as an account sees it (contract guide, "Accounts"): the entries it may use,
 * in the catalog's order, the first of them its default; an entry limited to other accounts does not
 * exist for it, in reads and in creates alike.
 */
import { describe, expect, it } from "vitest";
import { DIGITAL_HUMANS, expectApiError, expectData, KEYS, useHarness } from "../support/harness.js";

const BEA = {
  id: "2c4e6a8b-1d3f-4b5d-9e7f-a1b2c3d4e5f6",
  name: "Bea",
  agent_name: "bea",
  description: "Only for account B",
  accounts: ["acct_b"],
};
const h = useHarness({}, {}, { digitalHumans: [BEA] });
const [AVA, LEO] = DIGITAL_HUMANS;

const list = async (key: string, query: { limit?: number; cursor?: string } = {}) =>
  expectData(await h.client(key).listDigitalHumans(query));

describe("GET /v1/digital-humans", () => {
  it("lists what the account may use, in the catalog's order, the first marked default", async () => {
    expect((await list(KEYS.aRead)).data).toEqual([
      { id: AVA.id, name: "Ava", description: null, default: true },
      { id: LEO.id, name: "Leo", description: null, default: false },
    ]);
    expect((await list(KEYS.b)).data.map((d) => d.name)).toEqual(["Ava", "Leo", "Bea"]);
    expect((await list(KEYS.b)).data.find((d) => d.name === "Bea")).toMatchObject({ description: "Only for account B", default: false });
  });

  it("pages with limit and cursor", async () => {
    const first = await list(KEYS.b, { limit: 2 });
    expect(first.data.map((d) => d.name)).toEqual(["Ava", "Leo"]);
    const second = await list(KEYS.b, { limit: 2, cursor: first.next_cursor as string });
    expect(second).toEqual({ data: [expect.objectContaining({ name: "Bea" })], next_cursor: null });
    await expectApiError(await h.client(KEYS.b).listDigitalHumans({ cursor: "nope" }), 422, "validation_failed");
  });

  it("requires sessions:read", async () => {
    await expectApiError(await h.client(KEYS.aWrite).listDigitalHumans(), 403, "forbidden");
  });
});

describe("GET /v1/digital-humans/{id}", () => {
  it("answers one the account may use, and 404 for one limited to another account, an unknown or a malformed id", async () => {
    const leo = await h.client(KEYS.aRead).getDigitalHuman(LEO.id.toUpperCase());
    expect(expectData(leo)).toEqual({ id: LEO.id, name: "Leo", description: null, default: false });
    for (const id of [BEA.id, "00000000-0000-4000-8000-000000000000", "not-a-uuid"]) {
      await expectApiError(await h.client(KEYS.aRead).getDigitalHuman(id), 404, "not_found");
    }
    expect((await h.client(KEYS.b).getDigitalHuman(BEA.id)).response.status).toBe(200);
  });
});

describe("POST /v1/sessions with a digital human limited to another account", () => {
  it("answers 422 digital_human_not_found, as for one that does not exist", async () => {
    await expectApiError(await h.client().createSession({ digital_human_id: BEA.id }), 422, "digital_human_not_found");
    expect((await h.client(KEYS.b).createSession({ digital_human_id: BEA.id })).response.status).toBe(201);
  });
});
