import { pastePlaceholder } from './state.js';

/** A paste of this many lines or characters collapses in the composer. */
export const PASTE_COLLAPSE_LINES = 4;
export const PASTE_COLLAPSE_CHARS = 800;

/** The composer's text with each collapsed paste back in place. */
export function expandPastes(text: string, pastes: string[]): string {
  return pastes.reduce((expanded, paste, i) => expanded.replace(pastePlaceholder(i + 1, paste), paste), text);
}
