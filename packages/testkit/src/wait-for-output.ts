import type { ChildProcess } from "node:child_process";

/**
 * Resolves once a child process's output (stdout and stderr together) matches `ready`; rejects if it
 * exits first or the timeout passes, with the end of its output in the message. The returned function
 * reads everything it has printed so far, then and later.
 */
export function waitForOutput(child: ChildProcess, ready: RegExp, options: { name: string; timeoutMs?: number }): Promise<() => string> {
  let output = "";
  const onData = (chunk: Buffer) => (output += chunk);
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  return new Promise((resolve, reject) => {
    const finish = (error?: Error) => {
      clearTimeout(timer);
      child.stdout?.off("data", check);
      child.stderr?.off("data", check);
      child.off("exit", onExit);
      child.off("error", onError);
      if (error) reject(error);
      else resolve(() => output);
    };
    const check = () => {
      if (ready.test(output)) finish();
    };
    const onExit = (code: number | null) =>
      finish(new Error(`${options.name} exited with ${code} before it was ready:\n${output.slice(-2000)}`));
    const onError = (error: Error) => finish(new Error(`cannot start ${options.name}: ${error.message}`));
    const timer = setTimeout(
      () => finish(new Error(`${options.name} not ready after ${options.timeoutMs} ms:\n${output.slice(-2000)}`)),
      options.timeoutMs ?? 60_000,
    );
    child.stdout?.on("data", check);
    child.stderr?.on("data", check);
    child.once("exit", onExit);
    child.once("error", onError);
  });
}
