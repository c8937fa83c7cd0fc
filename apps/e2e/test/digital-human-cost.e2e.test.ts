/**
 * How many sessions fit on this machine, and what each costs. Sessions arrive one after another, each
 * with a participant publishing a quiet microphone, until the digital human worker refuses one (the
 * CPUs past its limit, admission.ts) or E2E_LOAD_MAX is reached; the CPU of the worker and every job
 * process it runs is then measured from /proc over a window. A stack of its own, so nothing of another
 * test's sessions runs meanwhile. Nothing assumes a number of sessions fits: the number is printed.
 */
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { createClient, type DhsClient, type Session } from "@dhs/client";
import { LOG, STEP } from "@dhs/digital-human/log-lines";
import { until } from "@dhs/testkit";
import { AudioSource, LocalAudioTrack, Room, TrackPublishOptions, TrackSource } from "@livekit/rtc-node";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { busiest, cpuBetween, treeCpu } from "./support/process-cpu.js";
import { AVA, DEV_API_KEY, type Stack, startStack, TIMEOUTS } from "./support/stack.js";

let stack: Stack;
let api: DhsClient;

// Long enough for a kept-out session to be dispatched again several times before it fails.
const DIGITAL_HUMAN_TIMEOUT_S = 60;
// How long a session may take to get its digital human and still count as fitting (dispatches again included).
const JOIN_WAIT_MS = 20_000;

beforeAll(async () => {
  stack = await startStack(inject("livekitServer"), { ...TIMEOUTS, digitalHumanS: DIGITAL_HUMAN_TIMEOUT_S });
  api = createClient({ baseUrl: stack.apiUrl, apiKey: DEV_API_KEY, maxRetries: 0 });
});

afterAll(async () => {
  await stack?.stop();
});

async function listItem(id: string) {
  const { data } = await api.listSessions({ limit: 100 });
  return data?.data.find((item) => item.id === id);
}

interface WorkerLine {
  time: number;
  msg: string;
  session_id?: string;
  step?: string;
  reason?: string;
  load?: number;
}

function workerLog(): WorkerLine[] {
  return readFileSync(`${stack.logs}digital-human.log`, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as WorkerLine);
}

/** Whether the worker accepted a job for the session (its "job request" timeline step). */
function accepted(sessionId: string): boolean {
  return workerLog().some((l) => l.session_id === sessionId && l.msg === LOG.timeline && l.step === STEP.jobRequest);
}

/**
 * How the worker kept a session out while it waited (from `since`, for `forMs`): the jobs it refused
 * when they came, and the loads at which it told LiveKit it was full (LiveKit then sends none), counting
 * a "full" that began before the wait and had not ended.
 */
function keptOut(sessionId: string, since: number, forMs: number): { refusals: string[]; markedFull: number[] } {
  const lines = workerLog();
  const status = lines.filter((l) => l.msg.startsWith("worker is at full capacity") || l.msg.startsWith("worker is below capacity"));
  const before = status.filter((l) => l.time < since).at(-1);
  const during = status.filter((l) => l.time >= since && l.time <= since + forMs);
  const full = [...(before ? [before] : []), ...during].filter((l) => l.msg.startsWith("worker is at full capacity"));
  return {
    refusals: lines.filter((l) => l.session_id === sessionId && l.msg === LOG.refusingJob).map((l) => l.reason ?? ""),
    markedFull: full.map((l) => l.load ?? 0),
  };
}

describe("sessions on this 2-core machine", () => {
  it("fit until the digital human worker refuses the next one, and each costs this much CPU (printed, for docs/digital-human.md and capacity planning)", async () => {
    const max = Number(process.env.E2E_LOAD_MAX ?? 16);
    // E2E_LOAD_RECORDING=on|off: the sessions are of a digital human of the account's own that records them
    // (or not, to compare like with like): what a recording costs the worker (docs/capacity.md).
    const recording = process.env.E2E_LOAD_RECORDING;
    const digitalHumanId =
      recording === undefined
        ? undefined
        : (await api.createDigitalHuman({ name: "Ava", appearance: AVA.id, recording: { audio: recording === "on" } })).data?.id;
    const created: Session[] = [];
    const participants: Awaited<ReturnType<typeof joinWithSilentMicrophone>>[] = [];
    let fit = 0;
    let refused: Session | undefined;
    let refusedAt = 0;
    try {
      while (created.length < max) {
        const arrived = Date.now();
        const session = (
          await api.createSession({
            participant_identity: `load-${created.length}`,
            ...(digitalHumanId ? { digital_human_id: digitalHumanId } : {}),
          })
        ).data as Session;
        created.push(session);
        participants.push(await joinWithSilentMicrophone(session));
        // A session fits when its digital human joins, at once or after the service dispatched it again
        // (a job refused while another was still starting); it does not when the worker keeps refusing.
        const joined = await until(async () => ((await listItem(session.id))?.digital_human_joined_at ? true : undefined), {
          what: "the digital human",
          timeoutMs: JOIN_WAIT_MS,
        }).catch(() => false);
        if (!joined) {
          refused = session;
          refusedAt = arrived;
          break;
        }
        fit++;
        // The greeting (about five seconds of speech), then listening: the next arrives as it ends.
        await new Promise((resolve) => setTimeout(resolve, 4000));
      }

      // Every job the worker accepted started: its digital human joined, and the participant has its tracks.
      for (const [i, session] of created.entries()) {
        if (session === refused) {
          expect(accepted(session.id), `the worker accepted a job for session ${i + 1} and did not start it`).toBe(false);
          continue;
        }
        expect(participants[i]?.remoteTracks(), `session ${i + 1}: the digital human's audio and video`).toBeGreaterThanOrEqual(2);
      }
      // The one that did not fit was kept out by the worker: refused, or not sent to a worker marked full.
      const out = refused ? keptOut(refused.id, refusedAt, JOIN_WAIT_MS) : { refusals: [], markedFull: [] };
      if (refused) expect(out.refusals.length + out.markedFull.length, "the worker refused it or said it was full").toBeGreaterThan(0);

      // Past the capacity: the session kept out is dispatched again while it waits, and fails with
      // digital_human_timeout unless room came up meanwhile.
      let joinedLater = false;
      if (refused) {
        const id = refused.id;
        const item = await until(
          async () => {
            const found = await listItem(id);
            return found?.status === "failed" || found?.digital_human_joined_at ? found : undefined;
          },
          { what: "the kept-out session's end or its digital human", timeoutMs: (DIGITAL_HUMAN_TIMEOUT_S + 30) * 1000 },
        );
        joinedLater = item.digital_human_joined_at !== null;
        console.log(`the session past the capacity: ${item.status} (${item.end_reason ?? "its digital human joined later"})`);
        if (item.status === "failed") expect(item.end_reason).toBe("digital_human_timeout");
      }

      // Every session with its digital human, greeted and listening: what a session costs most of its life.
      const running = fit + (joinedLater ? 1 : 0);
      await new Promise((resolve) => setTimeout(resolve, 6000));
      const windowS = 20;
      const before = treeCpu(stack.workerPid);
      await new Promise((resolve) => setTimeout(resolve, windowS * 1000));
      const after = treeCpu(stack.workerPid);
      const cpuMs = cpuBetween(before, after);
      console.log(`busiest processes of the worker:\n  ${busiest(before, after).join("\n  ")}`);
      const fullAt = out.markedFull.map((load) => `${Math.round(load * 100)}%`).join(", ");
      console.log(
        refused
          ? `capacity: ${fit} sessions fit on this machine (${cpus().length} cores, LiveKit and the service beside the worker); ` +
              `session ${fit + 1} was kept out: ${out.refusals.length} refusals (${[...new Set(out.refusals)].join(", ") || "none"}), ` +
              `the worker marked full ${out.markedFull.length} times (load ${fullAt || "-"})`
          : `capacity: all ${fit} sessions tried fit (E2E_LOAD_MAX=${max}); the machine takes more`,
      );
      console.log(
        `digital human worker, ${running} sessions (face 320x240 at 15 fps, voice, VAD, encoding${recording ? `; recording ${recording}` : ""}): ` +
          `${(cpuMs / windowS / 10).toFixed(0)}% of one core in all, ${(cpuMs / windowS / running / 10).toFixed(1)}% per session`,
      );
      expect(fit, "sessions that fit").toBeGreaterThanOrEqual(1);
    } finally {
      await Promise.all(participants.map((p) => p.leave()));
      await Promise.all(created.map((session) => api.endSession(session.id)));
    }
  }, 600_000);
});

/**
 * A participant as a browser with a quiet microphone is to the digital human: a published audio track
 * that carries no sound (a browser's Opus sends next to nothing in silence). It sends no frames, so the
 * CPU on this machine is the digital humans', not encoders of the test's own.
 */
async function joinWithSilentMicrophone(session: Session): Promise<{ remoteTracks(): number; leave(): Promise<void> }> {
  const room = new Room();
  // No subscriptions: decoding the videos here would take the CPU the digital humans are measured on.
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
