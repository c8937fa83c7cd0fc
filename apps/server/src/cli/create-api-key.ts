/**
 * Creates an API key: prints the secret once (it is not stored anywhere) and appends its SHA-256 to the
 * key file the server reads (API_KEYS_FILE).
 *
 *   node dist/cli/create-api-key.js --file keys.json --account acct_1 [--scopes sessions:read,sessions:write] [--id key_x] [--mode test]
 *
 * Without --scopes the key gets every scope (sessions, digital humans and webhooks, read and write); without --mode it is
 * a live key (`dhs_live_...`); `--mode test` makes a test key (`dhs_test_...`), whose data is apart.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { modeValues, scopeValues } from "@dhs/contract";
import { ACCOUNT_ID_PATTERN, type ApiKeyRecord, generateApiKey, hashApiKey, isMode, KEY_ID_PATTERN } from "../domain/accounts/api-keys.js";

const USAGE = `usage: create-api-key --file <keys.json> --account <account id> [--scopes ${scopeValues.join(",")}] [--id <key id>] [--mode ${modeValues.join("|")}]`;

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    file: { type: "string" },
    account: { type: "string" },
    scopes: { type: "string", default: scopeValues.join(",") },
    id: { type: "string" },
    mode: { type: "string", default: "live" },
  },
});

if (!values.file) fail("--file is required");
if (!values.account || !ACCOUNT_ID_PATTERN.test(values.account)) fail("--account must be 1-64 characters of A-Z a-z 0-9 _ . : -");
const scopes = values.scopes
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const unknown = scopes.filter((s) => !(scopeValues as readonly string[]).includes(s));
if (unknown.length > 0) fail(`unknown scope ${unknown.join(", ")}; known: ${scopeValues.join(", ")}`);

const mode = values.mode;
if (!isMode(mode)) fail(`--mode must be one of ${modeValues.join(", ")}`);

const file = values.file;
const existing: { keys: ApiKeyRecord[] } = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : { keys: [] };
const id = values.id ?? `key_${randomBytes(6).toString("hex")}`;
if (!KEY_ID_PATTERN.test(id)) fail("--id must be 1-64 characters of A-Z a-z 0-9 _ . : -");
if (existing.keys.some((k) => k.id === id)) fail(`a key with id ${id} is already in ${file}`);

const secret = generateApiKey(mode);
existing.keys.push({
  id,
  account_id: values.account,
  scopes: scopes as ApiKeyRecord["scopes"],
  sha256: hashApiKey(secret).toString("hex"),
  mode,
});
// Write beside and rename, so a server reading the file never sees half of it.
const temporary = `${file}.${process.pid}.tmp`;
writeFileSync(temporary, `${JSON.stringify(existing, null, 2)}\n`, { mode: 0o600 });
renameSync(temporary, file);

process.stderr.write(`Added ${id} (account ${values.account}, ${mode}, scopes ${scopes.join(", ")}) to ${file}.\n`);
process.stderr.write("The key is shown once; store it in your secret manager now:\n");
process.stdout.write(`${secret}\n`);
