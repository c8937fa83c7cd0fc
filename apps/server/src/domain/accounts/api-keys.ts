/**
 * API keys (contract guide, "API keys and scopes"): random secrets (`dhs_live_` or `dhs_test_` and 256
 * bits), stored only as SHA-256 hex, compared in constant time, never logged. A key belongs to one account,
 * carries scopes, and is live or test: a test key's data is kept under the account's test side, an owner
 * id no live account can have, so every store lookup by owner keeps the two modes apart as it keeps
 * accounts apart.
 */
import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import { type Mode, modeValues, type Scope } from "@dhs/contract";

export type { Mode };

/** Whether a value read from a file or a command line is one of the contract's modes. */
export function isMode(value: unknown): value is Mode {
  return (modeValues as readonly unknown[]).includes(value);
}

export interface ApiKeyRecord {
  id: string;
  account_id: string;
  scopes: Scope[];
  sha256: string;
  /** Absent: live (keys files written before test mode). */
  mode?: Mode;
}

export interface Principal {
  keyId: string;
  /** The owner of the data the key reads and writes: the account for a live key, its test side for a test key. */
  accountId: string;
  /** The account as the operator named it: its digital humans, its limits, getPrincipal's account_id. */
  account: string;
  mode: Mode;
  scopes: ReadonlySet<Scope>;
}

export const API_KEY_PREFIX = "dhs_";

/** Account ids become Redis hash tags, so no braces: a safe alphabet only (without `#`: see TEST_SIDE). */
export const ACCOUNT_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

// `#` is outside ACCOUNT_ID_PATTERN, so no account's own id ends with it.
const TEST_SIDE = "#test";

/** Whose data a key of `account` in `mode` reads and writes. */
export function dataOwner(account: string, mode: Mode): string {
  return mode === "test" ? `${account}${TEST_SIDE}` : account;
}

/** The mode of the data an owner id (dataOwner's) holds. */
export function modeOfOwner(owner: string): Mode {
  return owner.endsWith(TEST_SIDE) ? "test" : "live";
}
/** Key ids (the public half of a key) follow the same rule: the contract's Principal.key_id. */
export const KEY_ID_PATTERN = ACCOUNT_ID_PATTERN;

export function hashApiKey(secret: string): Buffer {
  return hash("sha256", secret, "buffer");
}

/** A new secret: `dhs_live_` or `dhs_test_` and 32 random bytes in base64url (256 bits). */
export function generateApiKey(mode: Mode = "live"): string {
  return `${API_KEY_PREFIX}${mode}_${randomBytes(32).toString("base64url")}`;
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
        principal: principalOf(record),
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

function principalOf(record: ApiKeyRecord): Principal {
  const mode = record.mode ?? "live";
  return {
    keyId: record.id,
    accountId: dataOwner(record.account_id, mode),
    account: record.account_id,
    mode,
    scopes: new Set(record.scopes),
  };
}
