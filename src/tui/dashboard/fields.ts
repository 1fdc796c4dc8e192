import { FieldError } from './errors.js';
import { parseNumber } from './format.js';

/**
 * Form text to request values. Only what the form must know to build the request is checked
 * here; the server checks the rest, and its 400 names the field to mark.
 */
export function readNumber(values: Record<string, string>, name: string, label: string): number {
  const value = parseNumber(values[name] ?? '');
  if (value === null) throw new FieldError(name, `${label} must be a number.`);
  return value;
}

/** A number, or null for an empty field (e.g. no credit limit). */
export function readOptionalNumber(values: Record<string, string>, name: string, label: string): number | null {
  return (values[name] ?? '').trim() === '' ? null : readNumber(values, name, label);
}

/** A comma- or space-separated list; empty text is the empty list. */
export function readList(values: Record<string, string>, name: string): string[] {
  return (values[name] ?? '').split(/[\s,]+/).filter(Boolean);
}
