/**
 * What the digital humans cost: ten sessions at once on this machine, each with its digital human
 * drawing, encoding, listening (and greeting its participant), measured from /proc for the worker and
 * every job process it runs. A stack of its own, so nothing of another test's sessions runs meanwhile.
 */
import { cpus } from "node:os";
import { createClient, type DhsClient, type Session } from "@dhs/client";
import { until } from "@dhs/testkit";
import { AudioSource, LocalAudioTrack, Room, TrackPublishOptions, TrackSource } from "@livekit/rtc-node";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { busiest, cpuBetween, treeCpu } from "./support/process-cpu.js";
import { DEV_API_KEY, type Stack, startStack, TIMEOUTS } from "./support/stack.js";

let stack: Stack;
let api: DhsClient;

beforeAll(async () => {
  // A digital-human timeout nearer production's (60 s), not the lifecycle tests' 5 s: on a saturated
  // machine the framework's one-at-a-time job processes take longer than 5 s to start (README).
  stack = await startStack(inject("livekitServer"), { ...TIMEOUTS, digitalHumanS: 30 });
  api = createClient({ baseUrl: stack.apiUrl, apiKey: DEV_API_KEY, maxRetries: 0 });
});

afterAll(async () => {
  await stack?.stop();
});

async function listItem(id: string) {
  const { data } = await api.listSessions({ limit: 100 });
  return data?.data.find((item) => item.id === id);
}

describe("ten simultaneous sessions on this 2-core machine", () => {
  it("cost the digital human worker this much CPU per session (printed, for the README and capacity planning)", async () => {
    const count = Number(process.env.E2E_LOAD_SESSIONS ?? 10);
    // Arriving four seconds apart (the worker warms its job processes one at a time, and each of its
    // sessions has 5 s to get its digital human); each joins from Node and publishes a quiet microphone.
    const created: Session[] = [];
    const participants: Awaited<ReturnType<typeof joinWithSilentMicrophone>>[] = [];
    for (let i = 0; i < count; i++) {
      const session = (await api.createSession({ participant_identity: `load-${i}` })).data as Session;
      created.push(session);
      participants.push(await joinWithSilentMicrophone(session));
      await new Promise((resolve) => setTimeout(resolve, 4000));
    }
    try {
      await until(
        async () => {
          const items = await Promise.all(created.map((session) => listItem(session.id)));
          return items.every((item) => item?.status === "active" && item.digital_human_joined_at);
        },
        { what: "ten active sessions with their digital humans", timeoutMs: 120_000 },
      );
      // Greetings (about five seconds of speech each) and then listening: what a session costs most of its life.
      const windowS = 20;
      const before = treeCpu(stack.workerPid);
      await new Promise((resolve) => setTimeout(resolve, windowS * 1000));
      const after = treeCpu(stack.workerPid);
      const cpuMs = cpuBetween(before, after);
      console.log(`busiest processes of the worker:\n  ${busiest(before, after).join("\n  ")}`);
      const perSession = cpuMs / windowS / count / 10;
      console.log(
        `digital human worker, ${count} simultaneous sessions (face 320x240 at 15 fps, voice, VAD, encoding): ` +
          `${(cpuMs / windowS / 10).toFixed(0)}% of one core in all, ${perSession.toFixed(1)}% per session, on ${cpus().length} cores`,
      );
      for (const p of participants) expect(p.remoteTracks(), "the digital human's audio and video").toBeGreaterThanOrEqual(2);
    } finally {
      await Promise.all(participants.map((p) => p.leave()));
      await Promise.all(created.map((session) => api.endSession(session.id)));
    }
  }, 300_000);
});

/**
 * A participant as a browser with a quiet microphone is to the digital human: a published audio track
 * that carries no sound (a browser's Opus sends next to nothing in silence). It sends no frames, so the
 * CPU on this machine is the digital humans', not ten encoders of the test's own.
 */
async function joinWithSilentMicrophone(session: Session): Promise<{ remoteTracks(): number; leave(): Promise<void> }> {
  const room = new Room();
  // No subscriptions: decoding ten videos here would take the CPU the digital humans are measured on.
  await room.connect(session.rtc_url, session.participant_token as string, { autoSubscribe: false, dynacast: false });
  await room.localParticipant?.publishTrack(
    LocalAudioTrack.createAudioTrack("microphone", new AudioSource(48_000, 1)),
    new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }),
  );
  return {
    remoteTracks: () => [...room.remoteParticipants.values()].reduce((n, p) => n + p.trackPublications.size, 0),
    leave: () => room.disconnect(),
  };
}
