import { describe, expect, it } from "vitest";
import { readTools } from "./job-tools.js";

describe("the tools of a job's metadata", () => {
  it("keeps each tool of the contract's shape, with the service's defaults, and leaves out the rest", () => {
    expect(
      readTools([
        {
          type: "webhook",
          name: "order_status",
          description: "Looks up an order.",
          endpoint_id: "we_1",
          timeout_ms: 2000,
          parameters: { type: "object" },
        },
        { type: "client", name: "show_room", description: "Shows a room." },
        { type: "end_session", name: "end_call" },
        { type: "client", name: "show_room", description: "A second one of the same name." },
        { type: "webhook", name: "no description" },
        { type: "client", name: "1bad", description: "A name the contract refuses." },
        { type: "teleport", name: "unknown_type", description: "Not a type of the contract." },
        "not an object",
      ]),
    ).toEqual([
      {
        type: "webhook",
        name: "order_status",
        description: "Looks up an order.",
        parameters: { type: "object" },
        timeout_ms: 2000,
        endpoint_id: "we_1",
      },
      { type: "client", name: "show_room", description: "Shows a room.", parameters: { type: "object", properties: {} }, timeout_ms: 5000 },
      { type: "end_session", name: "end_call", description: expect.stringContaining("goodbye") },
    ]);
  });

  it("is none for metadata without tools (a dispatch made by hand, a service before tools)", () => {
    expect(readTools(undefined)).toBeUndefined();
    expect(readTools({})).toBeUndefined();
  });
});
