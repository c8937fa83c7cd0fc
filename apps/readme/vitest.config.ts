import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Commands as a user types them: installs and builds included (pnpm demo may build livekit-server
    // with Go the first time). One block after another.
    testTimeout: 900_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
