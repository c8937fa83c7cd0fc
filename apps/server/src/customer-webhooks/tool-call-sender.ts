/**
 * Posts one webhook tool call to its endpoint and reads the answer (contract guide, "Tools"): signed as
 * events are (signature.ts), the address policy applied to the very address connected to, redirects not
 * followed, the call's own timeout over the whole of it (connection, answer and body), and at most
 * MAX_RESULT_BYTES of body read. Never retried: the customer may have acted.
 */
import { isIP } from "node:net";
import { Agent, request } from "undici";
import type { ToolCallSender, ToolCallSendResult } from "../domain/tools/ports.js";
import { MAX_RESULT_BYTES } from "../domain/tools/tool-call.js";
import { type AddressPolicy, hostOf } from "./address-policy.js";
import { policyLookup, Signer } from "./signature.js";
import { classify } from "./webhook-sender.js";

/** The longest a tool may take (the contract's ToolTimeout maximum): the agent's own bounds sit past it. */
const LONGEST_TOOL_MS = 30_000;
const KEEP_ALIVE_MS = 4000;

export class UndiciToolCallSender implements ToolCallSender {
  private readonly agent: Agent;
  private readonly signer = new Signer();

  constructor(private readonly policy: AddressPolicy) {
    this.agent = new Agent({
      headersTimeout: LONGEST_TOOL_MS,
      bodyTimeout: LONGEST_TOOL_MS,
      keepAliveTimeout: KEEP_ALIVE_MS,
      connect: { timeout: LONGEST_TOOL_MS, lookup: policyLookup(policy) },
    });
  }

  async call({ url, eventId, body, secrets, timeoutMs }: Parameters<ToolCallSender["call"]>[0]): Promise<ToolCallSendResult> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const target = new URL(url);
      if (isIP(hostOf(target))) await this.policy.allowedAddresses(hostOf(target));
      const response = await request(target, {
        method: "POST",
        dispatcher: this.agent,
        signal,
        headers: this.signer.headers(eventId, body, secrets),
        body,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_RESULT_BYTES) {
          response.body.destroy();
          return { kind: "answered", status: response.statusCode, body: null, durationMs: elapsed() };
        }
        chunks.push(chunk as Buffer);
      }
      return { kind: "answered", status: response.statusCode, body: Buffer.concat(chunks).toString("utf8"), durationMs: elapsed() };
    } catch (error) {
      return { kind: "failed", error: signal.aborted ? "timeout" : classify(error), durationMs: elapsed() };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
