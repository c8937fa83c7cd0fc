/**
 * Summarizes a V8 .cpuprofile (node --cpu-prof): self time by package and by function, so a profile
 * tells at a glance where a request's CPU goes.
 *
 *   tsx src/profile-summary.ts <file.cpuprofile> [top N] [window]
 *
 * With a window (part of a kind's name in the windows.json the bench wrote beside the profile), only the
 * samples taken while that load ran, and the time per event.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

const [file, topArg, windowArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write("usage: profile-summary <file.cpuprofile> [top N]\n");
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
};

/** A load the bench ran (windows.json beside the profile), when one is asked for: its samples alone. */
const window = windowArg
  ? (
      JSON.parse(readFileSync(join(dirname(file), "windows.json"), "utf8")) as {
        kind: string;
        events: number;
        fromUs: number;
        toUs: number;
      }[]
    )
      // The last that matches: a warm-up round comes before the measured one.
      .filter((w) => w.kind.includes(windowArg))
      .at(-1)
  : undefined;
if (windowArg && !window) {
  process.stderr.write(`no window in windows.json matches "${windowArg}"\n`);
  process.exit(2);
}

const selfUs = new Map<number, number>();
let at = profile.startTime;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  at += delta;
  if (window && (at < window.fromUs || at > window.toUs)) return;
  selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
});
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

function packageOf(url: string, name: string): string {
  if (!url) return name.startsWith("(") ? name : "(native)";
  const modules = url.match(/node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/);
  if (modules) return modules[1] as string;
  if (url.startsWith("node:")) return url;
  const ours = url.match(/apps\/server\/dist\/(.+)$/);
  return ours ? `service: ${ours[1]}` : url;
}

const byPackage = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  if (!us) continue;
  const pkg = packageOf(node.callFrame.url, node.callFrame.functionName);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
  const fn = `${node.callFrame.functionName || "(anonymous)"} ${pkg}:${node.callFrame.lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
}

const show = (title: string, map: Map<string, number>) => {
  process.stdout.write(`\n${title}\n`);
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    const perEvent = window ? `${(us / window.events).toFixed(0).padStart(6)} µs/event  ` : "";
    process.stdout.write(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${perEvent}${name}\n`);
  }
};
process.stdout.write(
  `${(total / 1e6).toFixed(1)} s of samples in ${file}${window ? ` while "${window.kind}" ran (${window.events} events)` : ""}\n`,
);
show("self time by package", byPackage);
show("self time by function", byFunction);
