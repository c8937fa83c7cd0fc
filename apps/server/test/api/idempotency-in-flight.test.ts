/**
 * Idempotent creates while the first request with the key is still running: the others are answered 409
 * idempotency_request_in_progress, and once it is done they replay its session. The first is held inside
 * LiveKit's CreateRoom until the test has the others' answers, so a slow machine changes only how long
 * that takes; LiveKit's timeout is long enough that the held create never gives up on its own.
 */
import type { SessionCreate } from "@dhs/client";
import { describe, expect, it } from "vitest";
import { expectApiError, expectData, until, useHarness } from "../support/harness.js";

// The lock outlives LiveKit's timeout and two Redis commands (the configuration's rule).
const h = useHarness({ LIVEKIT_TIMEOUT_MS: "10000", IDEMPOTENCY_LOCK_TTL_S: "30" });

const create = (body: unknown, idempotencyKey: string) => h.client().createSession(body as SessionCreate, { idempotencyKey });

describe("POST /v1/sessions, while the first request with the key is still running", () => {
  it("answers 409 idempotency_request_in_progress with Retry-After, then replays once it is done", async () => {
    const idempotencyKey = crypto.randomUUID();
    const asked = h.livekit.roomsAsked.length;
    const release = h.livekit.hold();
    const first = create({}, idempotencyKey);
    await until(() => h.livekit.roomsAsked.length > asked);
    const second = await create({}, idempotencyKey);
    release();
    await expectApiError(second, 409, "idempotency_request_in_progress");
    expect(second.response.headers.get("Retry-After")).toBe("1");
    const created = expectData(await first, 201);
    const third = await create({}, idempotencyKey);
    expect(third.data?.id).toBe(created.id);
    expect(third.response.headers.get("Idempotent-Replayed")).toBe("true");
  });

  it("25 concurrent identical requests make exactly one session and one room", async () => {
    const idempotencyKey = crypto.randomUUID();
    const asked = h.livekit.roomsAsked.length;
    const release = h.livekit.hold();
    let answered = 0;
    const answers = Array.from({ length: 25 }, () =>
      create({ participant_identity: "crowd" }, idempotencyKey).then((answer) => {
        answered += 1;
        return answer;
      }),
    );
    // One holds the key inside CreateRoom; every other is answered meanwhile.
    await until(() => answered === 24, { what: "24 of the 25 answered while the first is in LiveKit" });
    expect(h.livekit.roomsAsked.length - asked).toBe(1);
    release();
    const all = await Promise.all(answers);
    const created = all.filter((a) => a.response.status === 201).map((a) => a.data);
    const inProgress = all.filter((a) => a.response.status === 409 && a.error?.code === "idempotency_request_in_progress");
    expect([created.length, inProgress.length]).toEqual([1, 24]);
    expect(h.livekit.callsOf("CreateRoom")).toHaveLength(1);
    // Once the first is done, every retry replays that one session.
    const retries = await Promise.all(Array.from({ length: 5 }, () => create({ participant_identity: "crowd" }, idempotencyKey)));
    expect([...new Set(retries.map((answer) => answer.data?.id))]).toEqual([created[0]?.id]);
  });
});
