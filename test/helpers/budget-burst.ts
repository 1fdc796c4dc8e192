import { expect } from 'vitest';
import type { gatedEcho } from './providers.js';
import type { TestServer } from './server.js';

type Gate = ReturnType<typeof gatedEcho>;
type Answer = Awaited<ReturnType<TestServer['call']>>;

/**
 * `count` requests at once behind shut gates (gatedEcho upstreams): every request is held or
 * refused before any is served, so nothing settles while the others hold, and what was admitted
 * is exactly what the holds let through. Then the gates open and every answer is awaited.
 */
export async function burstBehindGates(gates: Gate[], request: (i: number) => Promise<Answer>, count = 40) {
  let refused = 0;
  let allDecided: () => void = () => {};
  const decided = new Promise<void>((resolve) => (allDecided = resolve));
  const started = () => gates.reduce((sum, gate) => sum + gate.started(), 0);
  // Before the gates open only refusals answer: admitted requests wait at their gate.
  const check = () => started() + refused === count && allDecided();
  gates.forEach((gate) => gate.onStart(check));
  const answers = Array.from({ length: count }, (_, i) =>
    request(i).then((answer) => {
      if (answer.status !== 200) refused += 1;
      check();
      return answer;
    }),
  );
  try {
    await decided;
    const admitted = started();
    gates.forEach((gate) => gate.open());
    const settled = await Promise.all(answers);
    expect(settled.filter((answer) => answer.status === 200)).toHaveLength(admitted);
    return { admitted, answers: settled };
  } finally {
    gates.forEach((gate) => gate.open());
  }
}
