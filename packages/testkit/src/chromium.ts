/**
 * How the tiers that drive a real browser launch Debian's Chromium (CHROMIUM_PATH moves it): headless,
 * without the sandbox (tests run as root), the GPU or any background traffic, since only the machine's
 * registries are reachable. Callers add what their page needs (fake camera and microphone).
 */
export function chromiumLaunchOptions(extraArgs: readonly string[] = []): { executablePath: string; args: string[] } {
  return {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
  };
}
