import { describe, expect, it } from "vitest";
import { AppError } from "../domain/app-error.js";
import { Cursors } from "./cursor.js";

const ID = "3fa85f64-5717-4562-b3fc-2c963f66afa6";
const cursors = new Cursors("a-secret-every-replica-shares");

function refused(open: () => unknown): void {
  expect(open).toThrow(AppError);
}

describe("Cursors", () => {
  it.each([
    [
      "sessions",
      () => cursors.sessions.decode("acct", cursors.sessions.encode("acct", { createdAtMs: 1, id: ID })),
      { createdAtMs: 1, id: ID },
    ],
    [
      "a transcript",
      () => cursors.transcript.decode("acct", ID.toUpperCase(), cursors.transcript.encode("acct", ID, { startedAtMs: -5, id: "dh-1" })),
      { startedAtMs: -5, id: "dh-1" },
    ],
    [
      "deliveries",
      () => cursors.deliveries.decode("acct", "we_1", cursors.deliveries.encode("acct", "we_1", "1795869300000-0")),
      "1795869300000-0",
    ],
    [
      "digital humans",
      () => cursors.digitalHumans.decode("acct", cursors.digitalHumans.encode("acct", { kind: "stock", id: ID })),
      { kind: "stock", id: ID },
    ],
  ])("opens what it sealed: %s", (_list, roundTrip, want) => {
    expect(roundTrip()).toEqual(want);
  });

  it("opens a cursor of another replica with the same secret, and refuses one of another secret", () => {
    const cursor = cursors.sessions.encode("acct", { createdAtMs: 1, id: ID });
    expect(new Cursors("a-secret-every-replica-shares").sessions.decode("acct", cursor)).toEqual({ createdAtMs: 1, id: ID });
    refused(() => new Cursors("another-secret").sessions.decode("acct", cursor));
  });

  it("refuses a cursor of another list, owner, session or endpoint", () => {
    const sessions = cursors.sessions.encode("acct", { createdAtMs: 1, id: ID });
    refused(() => cursors.sessions.decode("acct#test", sessions));
    refused(() => cursors.digitalHumans.decode("acct", sessions));
    refused(() => cursors.transcript.decode("acct", ID, sessions));
    const transcript = cursors.transcript.encode("acct", ID, { startedAtMs: 1, id: ID });
    refused(() => cursors.transcript.decode("acct", "00000000-0000-4000-8000-000000000000", transcript));
    refused(() => cursors.sessions.decode("acct", transcript));
    const deliveries = cursors.deliveries.encode("acct", "we_1", "5-0");
    refused(() => cursors.deliveries.decode("acct", "we_2", deliveries));
  });

  it("refuses a sealed value this API would never issue: a time beyond JavaScript's, the log entry 0-0", () => {
    refused(() => cursors.sessions.decode("acct", cursors.sessions.encode("acct", { createdAtMs: 9007199254740991, id: ID })));
    refused(() => cursors.sessions.decode("acct", cursors.sessions.encode("acct", { createdAtMs: 1, id: "x" })));
    refused(() => cursors.deliveries.decode("acct", "we_1", cursors.deliveries.encode("acct", "we_1", "0-0")));
  });

  it.each([
    ["", 0],
    ["short", 0],
    ["A".repeat(40), 0],
  ])("refuses what it did not seal: %j", (cursor) => {
    refused(() => cursors.sessions.decode("acct", cursor));
  });
});
