/**
 * Which scope each operation requires, read from the contract's `security` requirements, so the
 * authentication middleware can answer 401 and 403 before the request is parsed or validated (the
 * brief's order: 401, then 403, then 422) and no scope is written down twice.
 */
import { readFileSync } from "node:fs";
import type { Scope } from "@dhs/contract";
import { parse } from "yaml";

interface OperationScope {
  method: string;
  pattern: RegExp;
  scopes: Scope[];
}

type Document = {
  security?: Record<string, string[]>[];
  paths: Record<string, Record<string, { security?: Record<string, string[]>[] } | unknown>>;
};

const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"]);

export class OperationScopes {
  private readonly operations: OperationScope[] = [];

  constructor(document: Document) {
    for (const [path, item] of Object.entries(document.paths)) {
      const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`);
      for (const [method, operation] of Object.entries(item)) {
        if (!METHODS.has(method)) continue;
        const security = (operation as { security?: Record<string, string[]>[] }).security ?? document.security ?? [];
        this.operations.push({ method: method.toUpperCase(), pattern, scopes: security.flatMap((r) => Object.values(r).flat()) as Scope[] });
      }
    }
  }

  static fromFile(file: string): OperationScopes {
    return new OperationScopes(parse(readFileSync(file, "utf8")) as Document);
  }

  /** The scopes the operation at (method, path) requires; undefined when no operation is there. */
  required(method: string, path: string): readonly Scope[] | undefined {
    const found = this.operations.find((op) => op.method === method && op.pattern.test(path));
    return found?.scopes;
  }
}
