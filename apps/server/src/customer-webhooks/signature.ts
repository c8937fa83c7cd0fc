/**
 * The Standard Webhooks headers of one signed post (contract guide, "Webhooks"), events and tool calls
 * alike, signed with every secret that is current (the `standardwebhooks` library), and the lookup that
 * applies the address policy to the very address a post connects to.
 */
import type { LookupAddress, LookupOptions } from "node:dns";
import { Webhook } from "standardwebhooks";
import type { AddressPolicy } from "./address-policy.js";
import { WEBHOOK_USER_AGENT } from "./user-agent.js";

export class Signer {
  private readonly signers = new Map<string, Webhook>();

  headers(eventId: string, body: string, secrets: readonly string[], timestamp = new Date()): Record<string, string> {
    return {
      "content-type": "application/json",
      "user-agent": WEBHOOK_USER_AGENT,
      "webhook-id": eventId,
      "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
      "webhook-signature": secrets.map((secret) => this.signer(secret).sign(eventId, timestamp, body)).join(" "),
    };
  }

  private signer(secret: string): Webhook {
    let signer = this.signers.get(secret);
    if (!signer) {
      signer = new Webhook(secret);
      this.signers.set(secret, signer);
    }
    return signer;
  }
}

/** net.connect's lookup: resolves, and refuses the host unless every address is allowed. */
export function policyLookup(policy: AddressPolicy) {
  return (
    host: string,
    options: LookupOptions,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    policy.allowedAddresses(host).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]?.address ?? "", addresses[0]?.family);
      },
      (error: Error) => callback(error, ""),
    );
  };
}
