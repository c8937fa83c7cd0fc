/**
 * The digital human worker's log lines of one session (its stack's `digital-human.log`) and the
 * response time of each turn read from them: the timeline's steps from the end of the participant's
 * speech, with when the browser first heard the reply (docs/digital-human.md, "Response time").
 */
import { readFileSync } from "node:fs";
import { LOG, STEP } from "@dhs/digital-human/log-lines";
import { SPEAKING_RMS } from "./media-probe.js";

export interface LogLine {
  time: number;
  msg: string;
  step?: string;
  text?: string;
  [field: string]: unknown;
}

export function workerLines(logs: string, sessionId: string): LogLine[] {
  return readFileSync(`${logs}digital-human.log`, "utf8")
    .split("\n")
    .filter((line) => line.includes(sessionId))
    .map((line) => JSON.parse(line) as LogLine);
}

const TURN_STEPS: readonly string[] = [STEP.endOfSpeech, STEP.sttDone, STEP.llmRequest, STEP.firstToken, STEP.firstAudioSent];

/** Each answered turn's steps, in ms from the end of the participant's speech, with when the browser first heard the reply. */
export function turnTimelines(lines: LogLine[], audio: { at: number; rms: number }[]): Record<string, number>[] {
  const turns: Record<string, number>[] = [];
  let turn: Record<string, number> | undefined;
  let endedAt = 0;
  for (const line of lines) {
    if (line.msg !== LOG.timeline || line.step === undefined) continue;
    if (line.step === STEP.endOfSpeech) {
      endedAt = line.time;
      turn = { [STEP.endOfSpeech]: 0 };
      turns.push(turn);
    } else if (turn && TURN_STEPS.includes(line.step) && turn[line.step] === undefined) {
      turn[line.step] = line.time - endedAt;
      if (line.step === STEP.firstAudioSent) {
        const heard = audio.find((s) => s.at >= line.time - 100 && s.rms > SPEAKING_RMS);
        if (heard) turn["first audio heard (browser)"] = heard.at - endedAt;
      }
    }
  }
  return turns.filter((t) => t[STEP.firstAudioSent] !== undefined && t[STEP.llmRequest] !== undefined);
}
