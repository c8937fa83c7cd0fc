/**
 * The messages of the worker's log lines that others read: the end-to-end tier's timeline of a session
 * (docs/digital-human.md), what it matches against the audio a browser received, and an operator's
 * dashboards. Named once here, where the worker and the tests both take them, so renaming one fails `tsc`
 * rather than a test run.
 */

export const LOG = {
  /** A step of a session's start or of a turn, with `step` (one of STEP) and what it measured. */
  timeline: "timeline",
  /** A line of the digital human's, as its first sound is sent (`text`). */
  saying: "saying",
  /** A line cut off by the participant talking over it (`text`). */
  cutOff: "cut off",
  /** The participant's turn as recognized (`text`). */
  participantSaid: "participant said",
  /** Who the job is to be (`voice`, `instructions_chars`, `llm`). */
  personaReceived: "persona received",
  /** What hears and speaks the session (`stt`, `voice`, `voice_provider`, `spoken_by`, `language`). */
  speech: "speech",
  /** A provider's voice failed mid-reply (`voice`, `provider`, `error`): the offline voice speaks the rest of it. */
  voiceFallback: "voice fell back to the offline voice",
  /** The worker turned a job down (`reason`). */
  refusingJob: "refusing job",
  /** The job records its session (recording/session-recording.ts): the participant was told, the service agreed. */
  recordingStarted: "recording started",
  /** The job was asked to record but does not (`reason`: the service refused, could not be reached, ...). */
  notRecording: "not recording",
  /** The session's file is in the store (`bytes`, `ms` the upload took, `duration_ms` it plays). */
  recordingUploaded: "recording uploaded",
  /** The session's recording could not be recorded or uploaded (`reason`, as reported to the service). */
  recordingFailed: "recording failed",
} as const;

/** The timeline's steps, in the order a session meets them. */
export const STEP = {
  jobRequest: "job request",
  jobStarted: "job started",
  connected: "connected",
  tracksPublished: "tracks published",
  participantSeen: "participant seen",
  greetingStarted: "greeting started",
  startOfSpeech: "start of speech",
  endOfSpeech: "end of speech",
  sttDone: "stt done",
  /** The session's documents searched for the turn (`ms`, `passages`). */
  knowledge: "knowledge",
  llmRequest: "llm request",
  firstToken: "first token",
  firstAudioSent: "first audio sent",
} as const;

export type Step = (typeof STEP)[keyof typeof STEP];
