import { defineConfig } from "vitest/config";

// Unit tests beside the code: the face, the voice, the speaker and the listener, with no LiveKit.
export default defineConfig({ test: { include: ["src/**/*.test.ts"], testTimeout: 30_000 } });
