/**
 * API keys (contract guide, "API keys and scopes"): random secrets with the prefix `dhs_`, stored only
 * as SHA-256 hex, compared in constant time, never logged. A key belongs to one account and carries scopes.
 */
import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Scope } from "@dhs/contract";

export interface ApiKeyRecord {
  id: string;
  account_id: string;
  scopes: Scope[];
  sha256: string;
}

export interface Principal {
  keyId: string;
  accountId: string;
  scopes: ReadonlySet<Scope>;
}

export const API_KEY_PREFIX = "dhs_";

/** Account ids become Redis hash tags, so no braces: a safe alphabet only. */
export const ACCOUNT_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;
/** Key ids (the public half of a key) follow the same rule: the contract's Principal.key_id. */
export const KEY_ID_PATTERN = ACCOUNT_ID_PATTERN;

export function hashApiKey(secret: string): Buffer {
  return hash("sha256", secret, "buffer");
}

/** A new secret: the prefix and 32 random bytes in base64url (256 bits). */
export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
}

export class ApiKeyRing {
  private byHash = new Map<string, { digest: Buffer; principal: Principal }>();

  constructor(records: readonly ApiKeyRecord[]) {
    this.replace(records);
  }

  /** Swaps in another set of keys at once (a reload): a key not in it is refused from the next request on. */
  replace(records: readonly ApiKeyRecord[]): void {
    const byHash = new Map<string, { digest: Buffer; principal: Principal }>();
    for (const record of records) {
      byHash.set(record.sha256.toLowerCase(), {
        digest: Buffer.from(record.sha256, "hex"),
        principal: { keyId: record.id, accountId: record.account_id, scopes: new Set(record.scopes) },
      });
    }
    this.byHash = byHash;
  }

  /** How many keys authenticate now. */
  get size(): number {
    return this.byHash.size;
  }

  /** The principal of a presented secret, or undefined. Only hashes are kept or compared. */
  authenticate(secret: string): Principal | undefined {
    const digest = hashApiKey(secret);
    const entry = this.byHash.get(digest.toString("hex"));
    // The map lookup finds the candidate; the constant-time comparison is what decides.
    if (!entry || !timingSafeEqual(entry.digest, digest)) return undefined;
    return entry.principal;
  }
}
