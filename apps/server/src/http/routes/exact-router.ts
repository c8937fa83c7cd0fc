/**
 * Every route is matched as the contract spells it: letter case counts and a trailing slash makes
 * another path. A Router does not inherit these settings from the app, so every router is made here.
 */
import { Router } from "express";

export function exactRouter(): Router {
  return Router({ caseSensitive: true, strict: true });
}
