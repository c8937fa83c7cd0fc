/**
 * Digital humans as a feature: an account's own digital humans (PostgreSQL is their record) over the
 * operator's catalog, and their operations.
 */
import { DigitalHumanService, type DigitalHumanServiceDeps } from "../domain/digital-humans/digital-human-service.js";
import type { Cursors } from "../http/cursor.js";
import { digitalHumanOperations } from "../http/routes/digital-humans.js";
import type { Feature } from "./feature.js";

export function digitalHumansOf(deps: DigitalHumanServiceDeps, cursors: Cursors) {
  const digitalHumans = new DigitalHumanService(deps);
  return {
    digitalHumans,
    feature: { name: "digital humans", operations: digitalHumanOperations(digitalHumans, cursors) } satisfies Feature,
  };
}
