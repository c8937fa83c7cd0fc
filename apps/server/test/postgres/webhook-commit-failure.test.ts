/**
 * A webhook endpoint's write whose COMMIT fails (forced by a deferred trigger raising 40001, as a
 * serialization failure would) after Redis's copy took it: the customer is answered 503, and the copy is
 * put back as PostgreSQL has it, so an endpoint that does not exist takes no event, a secret never shown
 * signs nothing, and the next rotation goes through.
 */
import { WebhookReceiver } from "@dhs/testkit";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { expectData, KEYS, until, useHarness } from "../support/harness.js";

const h = useHarness();
const receiver = new WebhookReceiver();
let db: pg.Client;

beforeAll(async () => {
  await receiver.start();
  db = new pg.Client({ connectionString: h.databaseUrl });
  db.on("error", () => undefined);
  await db.connect();
  await db.query(`CREATE FUNCTION fail_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'forced at commit' USING ERRCODE = '40001'; END $$`);
});

afterAll(async () => {
  await receiver.stop();
  await db?.end();
});

afterEach(() => commits(true));

/** While refused, every write of webhook_endpoints fails at its COMMIT (a deferred constraint trigger). */
async function commits(allowed: boolean): Promise<void> {
  await db.query("DROP TRIGGER IF EXISTS fail_at_commit ON webhook_endpoints");
  if (!allowed) {
    await db.query(`CREATE CONSTRAINT TRIGGER fail_at_commit AFTER INSERT OR UPDATE OR DELETE ON webhook_endpoints
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_at_commit()`);
  }
}

const hooks = () => h.client(KEYS.aHooks);

/** Sends a test event to the endpoint and answers with which of the receiver's secrets verified it. */
async function testEventVerifiedWith(endpointId: string): Promise<number> {
  const before = receiver.of("webhook.test").length;
  expect((await hooks().testWebhookEndpoint(endpointId)).response.status).toBe(202);
  const [delivery] = await until(() => {
    const got = receiver.of("webhook.test").slice(before);
    return got.length > 0 ? got : undefined;
  });
  return delivery?.verifiedWith ?? -2;
}

describe("a webhook endpoint write whose COMMIT fails", () => {
  it("when it creates one, answers 503 and leaves no endpoint anywhere: not listed, no test event", async () => {
    const before = expectData(await hooks().listWebhookEndpoints()).data.map((e) => e.id);
    await commits(false);
    const refused = await hooks().createWebhookEndpoint({ url: receiver.url });
    expect(refused.response.status).toBe(503);
    await commits(true);
    expect(expectData(await hooks().listWebhookEndpoints()).data.map((e) => e.id)).toEqual(before);
    const { rows } = await db.query("SELECT count(*)::int AS n FROM webhook_endpoints");
    expect(rows[0].n).toBe(before.length);
    // And the account's limit counts none for it.
    const made = expectData(await hooks().createWebhookEndpoint({ url: receiver.url }), 201);
    expect(expectData(await hooks().listWebhookEndpoints()).data.map((e) => e.id)).toEqual([made.id, ...before]);
    await hooks().deleteWebhookEndpoint(made.id);
  });

  it("when it rotates the secret, answers 503, keeps signing with the secret the customer has, and the next rotation goes through", async () => {
    const endpoint = expectData(await hooks().createWebhookEndpoint({ url: receiver.url }), 201);
    receiver.secrets = [endpoint.secret as string];
    await commits(false);
    expect((await hooks().rotateWebhookEndpointSecret(endpoint.id)).response.status).toBe(503);
    await commits(true);
    expect(await testEventVerifiedWith(endpoint.id)).toBe(0);
    const rotated = expectData(await hooks().rotateWebhookEndpointSecret(endpoint.id));
    receiver.secrets = [rotated.secret as string];
    expect(await testEventVerifiedWith(endpoint.id)).toBe(0);
    await hooks().deleteWebhookEndpoint(endpoint.id);
  });

  it("when it deletes one, answers 503 and the endpoint stays, taking events", async () => {
    const endpoint = expectData(await hooks().createWebhookEndpoint({ url: receiver.url }), 201);
    receiver.secrets = [endpoint.secret as string];
    await commits(false);
    expect((await hooks().deleteWebhookEndpoint(endpoint.id)).response.status).toBe(503);
    await commits(true);
    expect(expectData(await hooks().getWebhookEndpoint(endpoint.id)).id).toBe(endpoint.id);
    expect(await testEventVerifiedWith(endpoint.id)).toBe(0);
    expect((await hooks().deleteWebhookEndpoint(endpoint.id)).response.status).toBe(200);
  });
});
