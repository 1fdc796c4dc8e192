/**
 * SIGINT or SIGTERM, listened for until `dispose`: a command that runs until stopped removes its
 * listeners when it ends, so one run in-process (the CLI tests) leaves nothing on the process.
 */
export function stopSignals(): { requested: Promise<void>; dispose(): void } {
  let onSignal = () => {};
  const requested = new Promise<void>((resolve) => {
    onSignal = () => resolve();
  });
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    requested,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
