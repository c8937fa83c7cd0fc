/**
 * LiveKit's credentials, checked at start in production: verified until a check says otherwise; while
 * LiveKit cannot be reached the check is repeated every few seconds, and the replica is unready until it
 * answers. Without a room service of ours (a test's own) there is nothing to check.
 */
import type { Logger } from "pino";
import type { LiveKitRoomService } from "./room-service.js";

const RECHECK_MS = 2000;

export class LiveKitCredentialCheck {
  verified = true;
  private recheck: NodeJS.Timeout | undefined;

  constructor(
    private readonly livekit: LiveKitRoomService | undefined,
    private readonly logger: Logger,
  ) {}

  async verify(): Promise<"ok" | "refused" | "unreachable"> {
    const result = await this.check();
    if (result !== "unreachable") return result;
    this.verified = false;
    this.recheck = setInterval(() => {
      void this.check().then((now) => {
        if (now === "unreachable") return;
        clearInterval(this.recheck);
        this.verified = now === "ok";
        if (now === "refused") this.logger.error("LiveKit refused LIVEKIT_API_KEY and LIVEKIT_API_SECRET; staying unready");
        else this.logger.info("LiveKit reachable, credentials accepted; ready");
      });
    }, RECHECK_MS);
    this.recheck.unref();
    return result;
  }

  stop(): void {
    clearInterval(this.recheck);
  }

  private check(): Promise<"ok" | "refused" | "unreachable"> {
    return this.livekit ? this.livekit.checkCredentials() : Promise.resolve("ok");
  }
}
