import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface SecretScan {
  files: number;
  lines: number;
  /** `file:line: what`, one per secret found. */
  findings: string[];
}

// Tokens are JWTs (participant tokens, LiveKit webhook signatures, the SDK's API tokens); API keys are
// `dhs_` secrets; customer webhook secrets are `whsec_` and their signatures `v1,<base64>`; a bearer
// credential that was not redacted is one either way.
const SHAPES: [string, RegExp][] = [
  ["a JWT", /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/],
  ["an API key", /dhs_[A-Za-z0-9_-]{20,}/],
  ["a webhook signing secret", /whsec_[A-Za-z0-9+/]{20,}/],
  ["a webhook signature", /v1,[A-Za-z0-9+/]{40,}={0,2}/],
  ["a bearer credential", /Bearer\s+(?!\[redacted\])\S{8,}/i],
];

/** Reads every file in `dir` whose name ends with one of `extensions`, line by line, for known secrets and secret-shaped text. */
export function scanForSecrets(dir: string, knownSecrets: readonly string[], extensions = [".log"]): SecretScan {
  const names = readdirSync(dir).filter((name) => extensions.some((ext) => name.endsWith(ext)));
  const scan: SecretScan = { files: names.length, lines: 0, findings: [] };
  for (const name of names) {
    readFileSync(join(dir, name), "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (line === "") return;
        scan.lines++;
        for (const secret of knownSecrets)
          if (line.includes(secret)) scan.findings.push(`${name}:${i + 1}: the secret ${secret.slice(0, 8)}...`);
        for (const [what, shape] of SHAPES) if (shape.test(line)) scan.findings.push(`${name}:${i + 1}: ${what}: ${line.slice(0, 200)}`);
      });
  }
  return scan;
}
