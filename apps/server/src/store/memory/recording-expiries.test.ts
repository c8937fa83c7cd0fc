import { recordingExpiriesContract } from "../../../test/contract/recording-expiries.contract.js";
import { MemoryRecordingExpiries } from "./recording-expiries.js";

recordingExpiriesContract("memory", async () => new MemoryRecordingExpiries());
