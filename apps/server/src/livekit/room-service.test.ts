import { readFileSync } from "node:fs";
import { openapiDocumentPath } from "@dhs/contract";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { jobMetadata } from "./room-service.js";

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(parse(readFileSync(openapiDocumentPath, "utf8")), "contract");
const isDigitalHumanJob = ajv.compile({ $ref: "contract#/components/schemas/DigitalHumanJob" });

describe("the digital human's job metadata", () => {
  const AVA = {
    id: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f",
    name: "Ava",
    appearance: "6f1c2d0e-8b7a-4c55-9a9e-2f3b1d4c5e6f",
    instructions: "Be brief.\nBe kind.",
    greeting: "Hello {participant_identity}! I'm {name}.",
    voice: "slt",
    language: "en",
    llm: { model: "gpt-4o-mini", temperature: 0.6 },
  };
  const agent = {
    agentName: "ava",
    job: {
      digital_human: AVA,
      participant_identity: "user-4821",
      max_duration_s: 1800,
    },
  };

  it.each([
    ["a live session", "acct_1"],
    ["a test session", "acct_1#test"],
  ])("is the contract's DigitalHumanJob for %s", (_case, accountId) => {
    const metadata = JSON.parse(jobMetadata("0d9a3c2e-5c4b-4b8a-9a77-0f1e2d3c4b5a", accountId, agent));
    expect(isDigitalHumanJob(metadata), JSON.stringify(isDigitalHumanJob.errors)).toBe(true);
    expect(metadata).toEqual({
      session_id: "0d9a3c2e-5c4b-4b8a-9a77-0f1e2d3c4b5a",
      account_id: accountId,
      digital_human: AVA,
      participant_identity: "user-4821",
      max_duration_s: 1800,
    });
  });
});
