import { Text } from 'ink';
import stringWidth from 'string-width';
import { useTerminalSize } from '../../shared/use-terminal-size.js';
import type { ChatState } from '../state.js';
import { formatCredits as credits, toCredits, totalMicro } from '../spend.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** What the status line says: left, the facts; right, the key that matters now. */
export function statusParts(state: ChatState, now: number): { left: string[]; hint: string } {
  if (state.busy && state.progress) {
    // The first frame of an answer may be drawn with a clock read before it started: never below zero.
    const elapsed = Math.max(0, now - state.progress.startedAt) / 1000;
    const spinner = SPINNER[Math.floor(elapsed * 4) % SPINNER.length];
    const left = [`${spinner} ${elapsed.toFixed(1)}s`, `${state.progress.tokens} tokens`];
    if (state.progress.tool) left.push(`running ${state.progress.tool}`);
    return { left: [...left, state.model], hint: 'Esc cancels' };
  }
  const last = state.lastAnswer;
  // A route may have served another model than the one asked: the status line says which.
  const answeredBy = last && last.asked === state.model && last.answeredBy && last.answeredBy !== state.model ? last.answeredBy : null;
  const left = [answeredBy ? `${state.model} → ${answeredBy}` : state.model];
  if (last) left.push(`${last.tokens} tokens${last.credits !== null ? ` · ${credits(last.credits)} credits` : ''}`);
  if (state.balance !== null) left.push(`balance ${credits(state.balance)}`);
  if (last || state.cap) {
    const spent = credits(toCredits(totalMicro(state.spend)));
    left.push(state.cap ? `session ${spent} of max ${credits(state.cap.limit)}` : `session ${spent}`);
  }
  if (!state.toolsEnabled) left.push('tools off');
  return { left, hint: state.exitArmed ? 'Ctrl+C again to exit' : '/help · Ctrl+D exits' };
}

const GAP = '   ';

/**
 * One row, whatever the width: the facts that fit, then the hint when there is room (the live
 * region above is measured assuming this line never wraps).
 */
export function fitStatus(parts: { left: string[]; hint: string }, columns: number): string {
  const width = Math.max(10, columns - 1);
  let left = parts.left.join(' · ');
  while (stringWidth(left) > width && left.includes(' · ')) left = left.slice(0, left.lastIndexOf(' · '));
  if (stringWidth(left) > width) left = `${left.slice(0, width - 1)}…`;
  // The hint follows the facts, not the far edge: a row padded to the width would take two rows
  // once the terminal is narrowed, and Ink, which erases by rows it drew, would leave one behind.
  return stringWidth(left) + GAP.length + stringWidth(parts.hint) <= width ? `${left}${GAP}${parts.hint}` : left;
}

/** Model (and the one that answered), what the last answer and the session cost, the balance; while answering, time, tokens and the tool running. */
export function StatusLine({ state, now }: { state: ChatState; now: number }) {
  const { columns } = useTerminalSize();
  return <Text dimColor>{fitStatus(statusParts(state, now), columns)}</Text>;
}
