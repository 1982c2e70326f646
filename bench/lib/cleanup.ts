/**
 * A small registry of cleanup steps, run once in reverse order of registration.
 *
 * Steps run at the end of a normal run, on a failure, and on SIGINT / SIGTERM. A synchronous
 * last-chance hook (for `process.on('exit')`, where nothing asynchronous can run) can be given per
 * step, so that child processes are killed and temp dirs removed even on an abrupt exit.
 */

type AsyncStep = () => Promise<void> | void;
type SyncStep = () => void;

interface Step {
  name: string;
  run: AsyncStep;
  onExit?: SyncStep;
  done: boolean;
}

const steps: Step[] = [];
let running: Promise<void> | undefined;
let installed = false;

/** Registers a cleanup step; returns a function that runs (and unregisters) just that step. */
export function onCleanup(name: string, run: AsyncStep, onExit?: SyncStep): () => Promise<void> {
  const step: Step = { name, run, onExit, done: false };
  steps.push(step);
  return async () => {
    await runStep(step);
  };
}

async function runStep(step: Step): Promise<void> {
  if (step.done) return;
  step.done = true;
  try {
    await step.run();
  } catch (err) {
    console.error(`[bench] cleanup "${step.name}" failed: ${errorMessage(err)}`);
  }
}

/** Runs every pending step in reverse order. Safe to call more than once. */
export function cleanupAll(): Promise<void> {
  running ??= (async () => {
    for (const step of [...steps].reverse()) await runStep(step);
  })();
  return running;
}

/** Installs SIGINT / SIGTERM / exit handlers once. A signal cleans up, then exits with 128 + signal. */
export function installSignalHandlers(): void {
  if (installed) return;
  installed = true;
  const onSignal = (signal: NodeJS.Signals, code: number) => {
    console.error(`\n[bench] ${signal} received, cleaning up...`);
    // A second signal while cleaning up exits at once (the exit hook still kills children).
    process.once(signal, () => process.exit(code));
    void cleanupAll().finally(() => process.exit(code));
  };
  process.once('SIGINT', () => onSignal('SIGINT', 130));
  process.once('SIGTERM', () => onSignal('SIGTERM', 143));
  process.on('exit', () => {
    for (const step of [...steps].reverse()) {
      if (step.done || !step.onExit) continue;
      try {
        step.onExit();
      } catch {
        // nothing more can be done while exiting
      }
    }
  });
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
