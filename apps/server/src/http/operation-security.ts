/**
 * Which scopes a request needs, taken from the operation the contract's validator matched for it (the
 * same match that picks the handler), never from a second table of path patterns. It fails closed: a
 * /v1 request that matched no operation, or an operation whose contract names no bearer scope
 * requirement, is refused. Operation-level `security` overrides the document's, as OpenAPI says; the
 * requirements are alternatives, and a key passes when it holds every scope of one of them.
 */
import { readFileSync } from "node:fs";
import type { Scope } from "@dhs/contract";
import { parse } from "yaml";
import type { MatchedOperation, SecurityRequirement } from "./contract-validator.js";

export type Authorization = { allowed: true } | { allowed: false; missing: Scope | undefined };

export class OperationSecurity {
  constructor(private readonly documentSecurity: readonly SecurityRequirement[] | undefined) {}

  static fromFile(file: string): OperationSecurity {
    const document = parse(readFileSync(file, "utf8")) as { security?: SecurityRequirement[] };
    return new OperationSecurity(document.security);
  }

  /** Whether a key with `granted` scopes may call the matched operation; undefined operation: refused. */
  authorize(operation: MatchedOperation | undefined, granted: ReadonlySet<string>): Authorization {
    const requirements = operation?.schema ? (operation.schema.security ?? this.documentSecurity) : undefined;
    // An empty list would mean "no authentication" in OpenAPI: no /v1 operation may be open by accident.
    if (!requirements || requirements.length === 0) return { allowed: false, missing: undefined };
    let missing: Scope | undefined;
    for (const requirement of requirements) {
      const schemes = Object.values(requirement);
      if (schemes.length === 0) continue;
      const lacking = schemes.flat().find((scope) => !granted.has(scope));
      if (lacking === undefined) return { allowed: true };
      missing ??= lacking as Scope;
    }
    return { allowed: false, missing };
  }
}
