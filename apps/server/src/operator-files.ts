/**
 * Reloads the operator's files (API_KEYS_FILE, DIGITAL_HUMANS_FILE) while the process runs: on SIGHUP,
 * and when either file changes. Changes are found by polling each file's status once a second rather than
 * by inotify on its directory: polling follows what the path points to, so an editor's rename-into-place,
 * a deploy tool's copy and a Kubernetes ConfigMap's symlink swap are all seen, and writes to other files
 * beside it (a log, say) cost nothing. A change is read once, 200 ms after it settles.
 */
import { type Stats, unwatchFile, watchFile } from "node:fs";

const POLL_MS = 1000;
const DEBOUNCE_MS = 200;

export function watchOperatorFiles(files: readonly string[], reload: () => void): { close(): void } {
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(reload, DEBOUNCE_MS);
    timer.unref();
  };
  const changed = (now: Stats, before: Stats) => {
    if (now.mtimeMs !== before.mtimeMs || now.ino !== before.ino || now.size !== before.size) schedule();
  };
  const paths = [...new Set(files)];
  for (const path of paths) watchFile(path, { interval: POLL_MS, persistent: false }, changed);
  const onHup = () => schedule();
  process.on("SIGHUP", onHup);
  return {
    close: () => {
      clearTimeout(timer);
      process.off("SIGHUP", onHup);
      for (const path of paths) unwatchFile(path, changed);
    },
  };
}
