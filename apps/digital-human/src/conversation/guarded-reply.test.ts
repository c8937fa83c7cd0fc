import { ReadableStream } from "node:stream/web";
import { describe, expect, it } from "vitest";
import { APOLOGY, guardReply, type ReplyFailure } from "./guarded-reply.js";

type Step = string | { wait: number } | { fail: Error };

/** A reply that yields its steps in order: text, a pause, or a failure. */
function scripted(steps: Step[]): ReadableStream<string> {
  let i = 0;
  return new ReadableStream<string>({
    async pull(controller) {
      const step = steps[i++];
      if (step === undefined) return controller.close();
      if (typeof step === "string") return controller.enqueue(step);
      if ("wait" in step) {
        await new Promise((resolve) => setTimeout(resolve, step.wait));
        return this.pull?.(controller);
      }
      throw step.fail;
    },
  });
}

async function read(reply: ReadableStream<unknown>): Promise<string> {
  let text = "";
  for await (const piece of reply) text += typeof piece === "string" ? piece : "";
  return text;
}

describe("guardReply", () => {
  it("passes a reply through untouched and says when its first text came", async () => {
    const failures: ReplyFailure[] = [];
    let firstText = 0;
    const reply = guardReply(scripted(["", "It is ", "four."]), {
      timeoutMs: 500,
      onFailure: (f) => failures.push(f),
      onFirstText: () => firstText++,
    });
    expect(await read(reply)).toBe("It is four.");
    expect(failures).toEqual([]);
    expect(firstText).toBe(1);
  });

  it("passes an error on as it came, for the framework to report (the session apologizes for it)", async () => {
    const failures: ReplyFailure[] = [];
    const broken = new Error("socket hang up");
    const pieces: string[] = [];
    const reading = (async () => {
      for await (const piece of guardReply(scripted(["Let me think", { fail: broken }]), {
        timeoutMs: 500,
        onFailure: (f) => failures.push(f),
      }))
        pieces.push(String(piece));
    })();
    await expect(reading).rejects.toBe(broken);
    expect(pieces).toEqual(["Let me think"]);
    expect(failures).toEqual([]);
  });

  it("gives up on a server that sends nothing for the deadline, before the first token or between two", async () => {
    for (const steps of [
      [{ wait: 400 }, "late."],
      ["Well,", { wait: 400 }, "late."],
    ] as Step[][]) {
      const failures: ReplyFailure[] = [];
      const started = Date.now();
      const text = await read(guardReply(scripted(steps), { timeoutMs: 100, onFailure: (f) => failures.push(f) }));
      expect(Date.now() - started).toBeLessThan(350);
      expect(text).toBe(steps[0] === "Well," ? `Well, ${APOLOGY}` : APOLOGY);
      expect(failures.map((f) => f.kind)).toEqual(["timeout"]);
    }
  });

  it("waits on a slow reply that keeps coming within the deadline", async () => {
    const failures: ReplyFailure[] = [];
    const steps: Step[] = ["One,", { wait: 60 }, " two,", { wait: 60 }, " three."];
    expect(await read(guardReply(scripted(steps), { timeoutMs: 150, onFailure: (f) => failures.push(f) }))).toBe("One, two, three.");
    expect(failures).toEqual([]);
  });
});
