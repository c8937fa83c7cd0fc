/**
 * Posts one signed event to an endpoint (contract guide, "Webhooks"): signed with every secret that is
 * current (Standard Webhooks, with the `standardwebhooks` library), over undici with keep-alive, one
 * timeout for the whole attempt, redirects not followed, and the address policy applied to the very
 * address connected to (a custom lookup refuses before any connection is made).
 */
import { isIP } from "node:net";
import { Agent, request } from "undici";
import type { SendResult, WebhookSender } from "../domain/customer-webhooks/ports.js";
import { AddressNotAllowedError, type AddressPolicy, hostOf } from "./address-policy.js";
import { policyLookup, Signer } from "./signature.js";

// Keep-alive idle time: shorter than the idle timeout of most servers, so a pooled socket is not reused
// just as the endpoint closes it.
const KEEP_ALIVE_MS = 4000;
const MAX_RESPONSE_BYTES = 64 * 1024;

export class UndiciWebhookSender implements WebhookSender {
  private readonly agent: Agent;
  private readonly signer = new Signer();

  constructor(
    private readonly policy: AddressPolicy,
    private readonly attemptTimeoutMs: number,
  ) {
    this.agent = new Agent({
      headersTimeout: attemptTimeoutMs,
      bodyTimeout: attemptTimeoutMs,
      keepAliveTimeout: KEEP_ALIVE_MS,
      connect: { timeout: attemptTimeoutMs, lookup: policyLookup(policy) },
    });
  }

  async send({
    url,
    eventId,
    body,
    secrets,
    traceparent,
  }: {
    url: string;
    eventId: string;
    body: string;
    secrets: string[];
    traceparent?: string | undefined;
  }): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    try {
      const target = new URL(url);
      // An address in the URL is never looked up, so the policy is applied to it here.
      if (isIP(hostOf(target))) await this.policy.allowedAddresses(hostOf(target));
      const timestamp = new Date();
      const signal = AbortSignal.timeout(this.attemptTimeoutMs);
      const response = await request(target, {
        method: "POST",
        dispatcher: this.agent,
        signal,
        headers: { ...this.signer.headers(eventId, body, secrets, timestamp), ...(traceparent === undefined ? {} : { traceparent }) },
        body,
      });
      // Read (a little of) the answer so the connection can be reused; its content is not kept. An answer
      // not in by the attempt's end is a timeout: without the signal, dump swallows the abort and a
      // receiver that drips its body past the timeout would count as answered.
      await response.body.dump({ limit: MAX_RESPONSE_BYTES, signal });
      const retryAfter = response.headers["retry-after"];
      return {
        kind: "answered",
        status: response.statusCode,
        retryAfterMs: retryAfterMs(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
        durationMs: elapsed(),
      };
    } catch (error) {
      return { kind: "failed", error: classify(error), durationMs: elapsed() };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** Seconds, or an HTTP date. */
export function retryAfterMs(header: string | undefined): number | null {
  if (header === undefined) return null;
  if (/^\s*\d+\s*$/.test(header)) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

type NetworkError = Extract<SendResult, { kind: "failed" }>["error"];

/** What went wrong, as the deliveries log names it. */
export function classify(error: unknown): NetworkError {
  const chain: unknown[] = [];
  for (let e = error; e instanceof Error && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  for (const e of chain as (Error & { code?: string })[]) {
    if (e instanceof AddressNotAllowedError || e.code === "DHS_ADDRESS_NOT_ALLOWED") return "address_not_allowed";
    if (e.name === "TimeoutError" || e.name === "AbortError" || /TIMEOUT/.test(e.code ?? "")) return "timeout";
    if (e.code === "ENOTFOUND" || e.code === "EAI_AGAIN" || e.code === "ENODATA") return "dns_failed";
    if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH|ERR_OSSL)/.test(e.code ?? "")) return "tls_failed";
  }
  return "connection_failed";
}
