import type { Key } from 'ink';
// The chat's line editor (pure functions) serves the dashboard's fields as well.
import { backspace, insert, move, withText, type Editor } from '../shared/editor.js';

/** One field of a dialog form. */
export interface FieldSpec {
  /** The request field it fills: a 400 naming it (`param`) marks this field. */
  name: string;
  label: string;
  initial?: string;
  /** A fixed set of values, cycled with ← → or Space, instead of free text. */
  options?: readonly string[];
  hint?: string;
}

export interface FormField {
  spec: FieldSpec;
  editor: Editor;
  choice: number;
}

export interface FormState {
  fields: FormField[];
  focus: number;
}

export function createForm(specs: readonly FieldSpec[]): FormState {
  return {
    fields: specs.map((spec) => ({
      spec,
      editor: withText(spec.options ? '' : (spec.initial ?? '')),
      choice: Math.max(0, spec.options?.indexOf(spec.initial ?? '') ?? 0),
    })),
    focus: 0,
  };
}

export function fieldValue(field: FormField): string {
  return field.spec.options ? (field.spec.options[field.choice] ?? '') : field.editor.text;
}

export function formValues(form: FormState): Record<string, string> {
  return Object.fromEntries(form.fields.map((field) => [field.spec.name, fieldValue(field)]));
}

/** What a key does to a form: a new state, or the form is submitted. */
export type FormStep = { type: 'edit'; form: FormState } | { type: 'submit'; form: FormState };

const focusBy = (form: FormState, step: number): FormState => ({
  ...form,
  focus: Math.min(form.fields.length - 1, Math.max(0, form.focus + step)),
});

function updateFocused(form: FormState, change: (field: FormField) => FormField): FormState {
  return { ...form, fields: form.fields.map((field, index) => (index === form.focus ? change(field) : field)) };
}

/** Enter moves to the next field, and on the last one submits. */
function enter(form: FormState): FormStep {
  return form.focus < form.fields.length - 1 ? { type: 'edit', form: focusBy(form, 1) } : { type: 'submit', form };
}

/** Every key but Esc (the dialog's own) goes here. */
export function formKey(form: FormState, input: string, key: Key): FormStep {
  const field = form.fields[form.focus];
  if (!field) return { type: 'submit', form };
  if (key.return) return enter(form);
  if ((key.tab && key.shift) || key.upArrow) return { type: 'edit', form: focusBy(form, -1) };
  if (key.tab || key.downArrow) return { type: 'edit', form: focusBy(form, 1) };
  const options = field.spec.options;
  if (options) {
    const step = key.leftArrow ? -1 : key.rightArrow || input === ' ' ? 1 : 0;
    if (step === 0) return { type: 'edit', form };
    return { type: 'edit', form: updateFocused(form, (f) => ({ ...f, choice: (f.choice + step + options.length) % options.length })) };
  }
  if (key.leftArrow || key.rightArrow) {
    return { type: 'edit', form: updateFocused(form, (f) => ({ ...f, editor: move(f.editor, key.leftArrow ? 'left' : 'right') })) };
  }
  if (key.backspace || key.delete) return { type: 'edit', form: updateFocused(form, (f) => ({ ...f, editor: backspace(f.editor) })) };
  if (key.ctrl && input === 'u') return { type: 'edit', form: updateFocused(form, (f) => ({ ...f, editor: withText('') })) };
  if (!input || key.ctrl || key.meta) return { type: 'edit', form };
  // Text and Enter in one chunk (fast typing) is typing, then Enter; other line breaks are dropped.
  const typed = input.endsWith('\r') && input.length > 1;
  const text = input.replace(/[\r\n]+/g, '');
  const edited = updateFocused(form, (f) => ({ ...f, editor: insert(f.editor, text) }));
  return typed ? enter(edited) : { type: 'edit', form: edited };
}

/** Whether an error's field (`allowed_origins.1` for a list item) is this form field. */
export const isField = (name: string, errorField: string | null): boolean =>
  errorField !== null && (errorField === name || errorField.startsWith(`${name}.`) || errorField.startsWith(`${name}[`));

/** Puts the cursor on the field an error is about, so it can be fixed at once. */
export function focusField(form: FormState, errorField: string | null): FormState {
  const index = form.fields.findIndex((field) => isField(field.spec.name, errorField));
  return index < 0 ? form : { ...form, focus: index };
}
