import type { Key } from 'ink';
import { describe, expect, it } from 'vitest';
import { createForm, focusField, formKey, formValues, isField, type FormState } from './form.js';

const key = (over: Partial<Key> = {}) => ({ ...over }) as Key;
const FIELDS = [
  { name: 'name', label: 'Name', initial: 'app' },
  { name: 'kind', label: 'Kind', options: ['live', 'test'] },
  { name: 'credits', label: 'Credits' },
];

/** Feeds keys to a form; returns the last state and whether it was submitted. */
function feed(form: FormState, ...keys: [string, Partial<Key>?][]) {
  let submitted = false;
  for (const [input, over] of keys) {
    const step = formKey(form, input, key(over));
    form = step.form;
    submitted ||= step.type === 'submit';
  }
  return { form, submitted };
}

describe('a dialog form', () => {
  it('starts on the first field with the initial values', () => {
    expect(formValues(createForm(FIELDS))).toEqual({ name: 'app', kind: 'live', credits: '' });
  });

  it('types into the focused field; Enter moves on, and on the last field submits', () => {
    const { form, submitted } = feed(createForm(FIELDS), ['s'], ['', { return: true }], [' '], ['', { return: true }], ['12'], ['', { return: true }]);
    expect(submitted).toBe(true);
    expect(formValues(form)).toEqual({ name: 'apps', kind: 'test', credits: '12' });
  });

  it('moves with Tab, Shift+Tab and the arrows, and cycles a choice with ← →', () => {
    let { form } = feed(createForm(FIELDS), ['', { tab: true }], ['', { leftArrow: true }]);
    expect(formValues(form).kind).toBe('test');
    ({ form } = feed(form, ['', { downArrow: true }], ['', { tab: true, shift: true }], ['', { upArrow: true }]));
    expect(form.focus).toBe(0);
  });

  it('edits text: backspace, Ctrl+U, the cursor; a pasted line break is dropped', () => {
    const { form } = feed(createForm(FIELDS), ['', { backspace: true }], ['', { leftArrow: true }], ['X'], ['a\nb']);
    expect(formValues(form).name).toBe('aXabp');
    expect(formValues(feed(form, ['u', { ctrl: true }]).form).name).toBe('');
  });

  it('text and Enter in one chunk is typing, then Enter', () => {
    const { form } = feed(createForm(FIELDS), ['ly\r']);
    expect(form.focus).toBe(1);
    expect(formValues(form).name).toBe('apply');
  });

  it('finds the field a server error names, list items included', () => {
    expect(isField('allowed_origins', 'allowed_origins.1')).toBe(true);
    expect(isField('allowed', 'allowed_origins')).toBe(false);
    expect(focusField(createForm(FIELDS), 'credits').focus).toBe(2);
    expect(focusField(createForm(FIELDS), 'other').focus).toBe(0);
  });
});
