/**
 * What the fault tests share: the development key the server process runs with, a create request as a
 * customer's backend sends it, and a readable figure report (the note quotes these numbers).
 */
export const DEV_KEY = "dhs_dev_insecure_local_key";

export function createSession(baseUrl: string, idempotencyKey: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${baseUrl}/v1/sessions`, {
    method: "POST",
    headers: { Authorization: `Bearer ${DEV_KEY}`, "Idempotency-Key": idempotencyKey, "Content-Type": "application/json" },
    body: JSON.stringify({ participant_identity: `load-${idempotencyKey.slice(-8)}` }),
    ...(signal ? { signal } : {}),
  });
}

export function getSession(baseUrl: string, id: string): Promise<Response> {
  return fetch(`${baseUrl}/v1/sessions/${id}`, { headers: { Authorization: `Bearer ${DEV_KEY}` } });
}

/** Prints the figures of a fault test as one block, so a CI log shows them next to the test's name. */
export function report(title: string, figures: Record<string, number | string>): void {
  const width = Math.max(...Object.keys(figures).map((k) => k.length));
  const lines = Object.entries(figures).map(([k, v]) => `  ${k.padEnd(width)}  ${typeof v === "number" ? Math.round(v * 10) / 10 : v}`);
  console.log(`${title}\n${lines.join("\n")}`);
}

export const ms = (n: number) => Math.round(n);

export { sleep } from "@dhs/testkit";
