import { describe, expect, it, vi } from "vitest";
import { sessionSettings, stockPersonas, VOICES } from "../../../test/support/session-fixtures.js";
import { MemorySessionStore } from "../../store/memory/session-store.js";
import { AccountLimits } from "../accounts/account-limits.js";
import type { Principal } from "../accounts/api-keys.js";
import { AppError } from "../app-error.js";
import { DependencyUnavailableError } from "../dependency-errors.js";
import { DigitalHumanCatalog } from "../digital-humans/digital-human-catalog.js";
import type { RoomService, SessionStore } from "./ports.js";
import { SessionService, type SessionSettings } from "./session-service.js";

const principal: Principal = {
  keyId: "k",
  accountId: "acct_1",
  account: "acct_1",
  mode: "live",
  scopes: new Set(["sessions:read", "sessions:write"]),
};
const catalog = new DigitalHumanCatalog([{ id: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f", name: "Ava", agent_name: "ava" }], VOICES);
const personas = stockPersonas(catalog);

function setup(overrides: { store?: Partial<SessionStore>; rooms?: Partial<RoomService>; settings?: Partial<SessionSettings> } = {}) {
  const memory = new MemorySessionStore();
  const store: SessionStore = Object.assign(Object.create(memory) as SessionStore, overrides.store);
  const rooms = {
    createRoom: vi.fn(async () => {}),
    deleteRoom: vi.fn(async () => {}),
    hasLiveAgentJob: async () => true,
    dispatchAgent: async () => {},
    listSessionRooms: async () => [],
    ...overrides.rooms,
  };
  const abandon = vi.spyOn(memory, "abandonCreate");
  const service = new SessionService({
    store,
    rooms,
    tokens: { mint: async ({ identity }) => `token-for-${identity}` },
    catalog,
    personas,
    accounts: new AccountLimits(1000),
    settings: sessionSettings({ rtcUrl: "wss://lk", idempotencyKeyTtlMs: 60_000, ...overrides.settings }),
    now: () => new Date("2026-11-22T10:00:00.000Z"),
  });
  return { service, rooms, abandon, memory };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("SessionService.create, when a step fails, keeps nothing", () => {
  it("LiveKit down: releases the key, deletes no room, answers DependencyUnavailableError", async () => {
    const { service, rooms, abandon } = setup({
      rooms: { createRoom: vi.fn(async () => Promise.reject(new DependencyUnavailableError("livekit"))) },
    });
    await expect(service.create(principal, "k1", {})).rejects.toBeInstanceOf(DependencyUnavailableError);
    await settle();
    expect(abandon).toHaveBeenCalledOnce();
    expect(rooms.deleteRoom).not.toHaveBeenCalled();
  });

  it("store down after the room was made: deletes the room and releases the key", async () => {
    const { service, rooms, abandon } = setup({
      store: { completeCreate: async () => Promise.reject(new DependencyUnavailableError("store")) },
    });
    await expect(service.create(principal, "k2", {})).rejects.toBeInstanceOf(DependencyUnavailableError);
    await settle();
    expect(rooms.deleteRoom).toHaveBeenCalledWith(expect.stringMatching(/^dhs-/));
    expect(abandon).toHaveBeenCalledOnce();
  });

  it("join timer not scheduled: the stored session stands, its room is kept, the failure is reported", async () => {
    const onBackgroundError = vi.fn();
    const memory = new MemorySessionStore();
    const rooms = {
      createRoom: vi.fn(async () => {}),
      deleteRoom: vi.fn(async () => {}),
      hasLiveAgentJob: async () => true,
      dispatchAgent: async () => {},
      listSessionRooms: async () => [],
    };
    const service = new SessionService({
      store: Object.assign(Object.create(memory) as SessionStore, {
        scheduleTimers: async () => Promise.reject(new DependencyUnavailableError("store")),
      }),
      rooms,
      tokens: { mint: async () => "t" },
      catalog,
      personas,
      accounts: new AccountLimits(1000),
      settings: sessionSettings({ rtcUrl: "wss://lk", idempotencyKeyTtlMs: 60_000 }),
      onBackgroundError,
    });
    const { session } = await service.create(principal, "k6", {});
    await settle();
    expect(await memory.getSession("acct_1", session.id)).toBeDefined();
    expect(rooms.deleteRoom).not.toHaveBeenCalled();
    expect(onBackgroundError).toHaveBeenCalledWith(expect.any(DependencyUnavailableError), "schedule join timer");
  });

  it("lock lost to another request: deletes its room and answers in progress", async () => {
    const { service, rooms } = setup({ store: { completeCreate: async () => false } });
    const error = await service.create(principal, "k3", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "idempotency_request_in_progress", retryAfterSeconds: 1 });
    await settle();
    expect(rooms.deleteRoom).toHaveBeenCalledOnce();
  });

  it("a failed clean-up is reported, not thrown", async () => {
    const onBackgroundError = vi.fn();
    const memory = new MemorySessionStore();
    const service = new SessionService({
      store: Object.assign(Object.create(memory) as SessionStore, {
        completeCreate: async () => false,
        abandonCreate: async () => Promise.reject(new Error("gone")),
      }),
      rooms: {
        createRoom: async () => {},
        deleteRoom: async () => Promise.reject(new Error("also gone")),
        hasLiveAgentJob: async () => true,
        dispatchAgent: async () => {},
        listSessionRooms: async () => [],
      },
      tokens: { mint: async () => "t" },
      catalog,
      personas,
      accounts: new AccountLimits(1000),
      settings: sessionSettings({ rtcUrl: "wss://lk", idempotencyKeyTtlMs: 60_000 }),
      onBackgroundError,
    });
    await expect(service.create(principal, "k4", {})).rejects.toMatchObject({ code: "idempotency_request_in_progress" });
    await settle();
    expect(onBackgroundError).toHaveBeenCalledTimes(2);
  });
});

describe("SessionService.create", () => {
  it("schedules the session's first timers together, in one call to the store", async () => {
    const { service, memory } = setup();
    const schedule = vi.spyOn(memory, "scheduleTimers");
    const { session } = await service.create(principal, "k7", {});
    await settle();
    expect(schedule).toHaveBeenCalledOnce();
    const created = Date.parse("2026-11-22T10:00:00.000Z");
    const { durations } = sessionSettings({});
    expect(schedule).toHaveBeenCalledWith("acct_1", session.id, [
      { timer: "join_timeout", atMs: created + durations.joinTimeoutS * 1000 },
      { timer: "dispatch_check", atMs: created + durations.redispatchS * 1000 },
    ]);
  });

  it("stores what the caller sent and answers the view with a token", async () => {
    const { service, memory } = setup();
    const { session, replayed } = await service.create(principal, "k5", { participant_identity: "u", tags: ["t"], metadata: { m: 1 } });
    expect(replayed).toBe(false);
    expect(session).toMatchObject({
      status: "created",
      rtc_url: "wss://lk",
      participant_token: "token-for-u",
      created_at: "2026-11-22T10:00:00.000Z",
    });
    expect(await memory.getSession("acct_1", session.id)).toMatchObject({ tags: ["t"], metadata: { m: 1 }, end_reason: null });
  });
});

describe("SessionService.onLiveKitEvent", () => {
  it("remembers a LiveKit event id that changed the session for the configured window, with the change", async () => {
    const { service, memory } = setup({ settings: { livekitEventDedupeMs: 600_000 } });
    const replace = vi.spyOn(memory, "replaceSession");
    const { session } = await service.create(principal, "k9", { participant_identity: "u" });
    const joined = { type: "participant_joined" as const, identity: "u", sid: "PA_1", isAgent: false };
    await service.onLiveKitEvent("EV_1", "acct_1", session.id, joined);
    expect(replace).toHaveBeenCalledOnce();
    expect(replace.mock.calls[0]?.[0].livekitEvent).toEqual({ id: "EV_1", ttlMs: 600_000 });
    // Redelivered after the session changed again: still nothing.
    await service.onLiveKitEvent("EV_2", "acct_1", session.id, { ...joined, type: "participant_left" });
    await service.onLiveKitEvent("EV_1", "acct_1", session.id, joined);
    expect(replace).toHaveBeenCalledTimes(2);
    expect((await memory.getSession("acct_1", session.id))?.participant_left_at).not.toBeNull();
  });

  it("does not take the redelivery of an event that changed nothing for news after a later change", async () => {
    const { service, memory } = setup();
    const { session } = await service.create(principal, "k11", { participant_identity: "u" });
    const joined = { type: "participant_joined" as const, identity: "u", sid: "PA_1", isAgent: false };
    await service.onLiveKitEvent("EV_1", "acct_1", session.id, joined);
    // The same connection reported twice: the second changes nothing, and is remembered.
    await service.onLiveKitEvent("EV_2", "acct_1", session.id, joined);
    await service.onLiveKitEvent("EV_3", "acct_1", session.id, { ...joined, type: "participant_left" });
    await service.onLiveKitEvent("EV_2", "acct_1", session.id, joined);
    expect((await memory.getSession("acct_1", session.id))?.participant_left_at).not.toBeNull();
  });

  it("changes the timers a transition owes before its first call outside the store with the session", async () => {
    const { service, memory } = setup();
    const replace = vi.spyOn(memory, "replaceSession");
    const { session } = await service.create(principal, "k10", { participant_identity: "u" });
    await service.onLiveKitEvent("EV_3", "acct_1", session.id, { type: "participant_joined", identity: "u", sid: "PA_1", isAgent: false });
    expect(replace.mock.calls[0]?.[0].timers.schedule.map((t) => t.timer)).toEqual(["max_duration", "digital_human_timeout"]);
  });

  it("gives the store an ended session's expiry: its end plus the retention", async () => {
    const { service, memory } = setup();
    const replace = vi.spyOn(memory, "replaceSession");
    const { session } = await service.create(principal, "k8", {});
    await service.end(principal, session.id);
    const { durations } = sessionSettings({});
    const ended = Date.parse("2026-11-22T10:00:00.000Z");
    expect(replace).toHaveBeenCalledOnce();
    expect(replace.mock.calls[0]?.[0].expiresAtMs).toBe(ended + durations.retentionS * 1000);
  });
});
