/**
 * A reply of the LLM's that cannot stall the session. The framework retries a refused request, then ends
 * the reply and reports an error (the session says the apology for that: conversation-session.ts), and
 * its request timeout covers only the wait for the response's headers: a server that stops sending
 * midway, or sends headers and then nothing, leaves the digital human silent for good. Here the reply is
 * read with a deadline for each piece (the first one included); a stall ends it with a short apology
 * (after whatever was already said), is reported once, and the turn is over: the digital human listens
 * again.
 */
import { ReadableStream } from "node:stream/web";
import type { llm } from "@livekit/agents";
import { ENGLISH } from "./spoken-lines.js";

export const APOLOGY = ENGLISH.apology;

export type ReplyFailure =
  /** The request was refused or the connection broke, before or during the reply (the framework's error). */
  | { kind: "error"; error: unknown }
  /** Nothing came for the deadline, before the first piece or between two. */
  | { kind: "timeout"; afterText: boolean };

export interface GuardOptions {
  /** How long the reply may go without a piece (the first one included) before it is given up. */
  timeoutMs: number;
  /** Called once when the reply stalls: the agent logs it with the session id and counts it. */
  onFailure(failure: ReplyFailure): void;
  /** Called with the first piece of text (the timeline's "first token"). */
  onFirstText?(): void;
  /** What it says when the reply stalls, in the persona's language (APOLOGY by default). */
  apology?: string;
}

type Piece = llm.ChatChunk | string | symbol;

/** Whether a piece carries text the person will hear. */
function textOf(piece: Piece): string {
  if (typeof piece === "string") return piece;
  if (typeof piece === "symbol") return "";
  return piece.delta?.content ?? "";
}

export function guardReply<T extends Piece>(reply: ReadableStream<T>, options: GuardOptions): ReadableStream<T | string> {
  const reader = reply.getReader();
  let saidSomething = false;
  let failed = false;
  const fail = (failure: Extract<ReplyFailure, { kind: "timeout" }>, controller: ReadableStreamDefaultController<T | string>) => {
    failed = true;
    options.onFailure(failure);
    reader.cancel().catch(() => undefined);
    // A space first, so the apology is its own sentence after words already said.
    const apology = options.apology ?? APOLOGY;
    controller.enqueue(saidSomething ? ` ${apology}` : apology);
    controller.close();
  };
  return new ReadableStream<T | string>({
    async pull(controller) {
      if (failed) return;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), options.timeoutMs);
      });
      try {
        const next = await Promise.race([reader.read(), deadline]);
        if (next === "timeout") return fail({ kind: "timeout", afterText: saidSomething }, controller);
        if (next.done) return controller.close();
        if (!saidSomething && textOf(next.value).trim() !== "") {
          saidSomething = true;
          options.onFirstText?.();
        }
        controller.enqueue(next.value);
      } catch (error) {
        // The framework reports it (an "error" event): passed on as it came.
        controller.error(error);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
