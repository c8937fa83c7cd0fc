import { readFileSync } from "node:fs";
import { errorCodeValues, openapiDocumentPath } from "@dhs/contract";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { STATUS_OF } from "./error-status.js";

const contract = parse(readFileSync(openapiDocumentPath, "utf8")) as { info: { description: string } };

/** The rows of the guide's error table: `| 404 | \`not_found\` | when |` as [code, status]. */
function tableOf(guide: string): [string, number][] {
  const section = guide.slice(guide.indexOf("# Errors"), guide.indexOf("\n# ", guide.indexOf("# Errors") + 1));
  return [...section.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => [m[2] as string, Number(m[1])]);
}

describe("error codes: one list, in the contract", () => {
  it("the server has a status for every code of the contract's ErrorCode, and for no other", () => {
    expect(Object.keys(STATUS_OF).sort()).toEqual([...errorCodeValues].sort());
  });

  it("the guide's error table lists exactly those codes, with the statuses the server answers", () => {
    expect(Object.fromEntries(tableOf(contract.info.description))).toEqual(STATUS_OF);
  });

  it("the table check fails on a code the table lacks, a code it adds, or another status", () => {
    const guide = contract.info.description;
    const planted = [
      guide.replace(/^\| 409 \| `session_not_connectable` \|.*\n/m, ""),
      guide.replace(/^(\| 500 \| `internal_error` \|.*\n)/m, "$1| 418 | `teapot` | Never. |\n"),
      guide.replace("| 429 | `rate_limited` |", "| 503 | `rate_limited` |"),
    ];
    for (const text of planted) {
      expect(text).not.toBe(guide);
      expect(Object.fromEntries(tableOf(text))).not.toEqual(STATUS_OF);
    }
  });
});
