/**
 * The private members of agents-js this worker relies on, in one place: two fields of its AgentSession,
 * and the main task of a TTS's ChunkedStream. The framework
 * offers no public way to give a session a RoomIO it did not make (conversation-session.ts's joinRoom
 * says why we make our own: the remote-session protocol it would answer hands participants the persona),
 * nor to read where its recorder wrote. An upgrade that renamed either would otherwise surface late and
 * quietly: every session without captions, or every recording failed as "no file". The worker checks at
 * start (`missingFrameworkInternals`) and refuses to start, naming the field and the version it was
 * written against.
 */
import { tts, voice } from "@livekit/agents";

/** The framework's version these fields were read from (pnpm-workspace.yaml's catalog). */
export const WRITTEN_AGAINST = "@livekit/agents 1.9.0";

type RoomIOField = { _roomIO?: voice.RoomIO };
type RecorderField = { _recorderIO?: { readonly outputPath?: string } };
type MainTask = { mainTask(): Promise<void> };
const FIELDS = ["_roomIO", "_recorderIO"] as const;

/** The fields a session of this framework lacks ([] when every one is there). */
export function missingFrameworkInternals(make: () => object = () => new voice.AgentSession({})): string[] {
  const session = make();
  const missing = FIELDS.filter((field) => !Object.hasOwn(session, field)).map((field) => `AgentSession.${field}`);
  if (typeof (tts.ChunkedStream.prototype as unknown as Partial<MainTask>).mainTask !== "function") {
    missing.push("tts.ChunkedStream.mainTask");
  }
  return missing;
}

/**
 * The stream, its failure left to the TTS's `error` event: a ChunkedStream starts its main task on the
 * next tick and never handles its rejection (agents 1.9.0), so a provider that refuses a sentence would
 * be an unhandled rejection on top of the event that already reports it. Wrapped before that tick.
 */
export function quietly<T extends tts.ChunkedStream>(stream: T): T {
  const task = stream as unknown as MainTask;
  const run = task.mainTask.bind(stream);
  task.mainTask = () => run().catch(() => undefined);
  return stream;
}

/** The session's room input and output are this RoomIO (the framework reads it from there for both). */
export function useRoomIO(session: voice.AgentSession, roomIO: voice.RoomIO): void {
  (session as unknown as RoomIOField)._roomIO = roomIO;
}

/** Where the session's recorder wrote, once it started one; undefined otherwise. */
export function recordedFile(session: voice.AgentSession | undefined): string | undefined {
  const path = (session as unknown as RecorderField | undefined)?._recorderIO?.outputPath;
  return typeof path === "string" && path !== "" ? path : undefined;
}
