import type { Key } from 'ink';
import { backspace, insert, withText, type Editor } from '../shared/editor.js';
import { describeLines, describeRoom } from './describe.js';
import type { ShownError } from './errors.js';
import { formKey, type FormState } from './form.js';
import { actionIn, listBindings } from './keys.js';
import { scrollBy } from './pager.js';

/**
 * The dialogs a screen opens: a form, a confirmation (optionally typed), a secret shown once,
 * a link to open. A dialog's action may lead to another dialog (a new key → its secret).
 * While a dialog is open it has every key; an error keeps it open, shown inside it.
 */
export type ModalNext = Modal | void;

interface ModalBase {
  title: string;
  lines?: string[];
  busy?: boolean;
  error?: ShownError | null;
}

export interface FormModal extends ModalBase {
  kind: 'form';
  form: FormState;
  submitLabel: string;
  submit(values: Record<string, string>): Promise<ModalNext>;
}

export interface ConfirmModal extends ModalBase {
  kind: 'confirm';
  /** Text the user must type to confirm (a name), or null for a y/n question. */
  typed: string | null;
  input: Editor;
  confirmLabel: string;
  run(): Promise<ModalNext>;
}

export interface SecretModal extends ModalBase {
  kind: 'secret';
  secret: string;
}

export interface LinkModal extends ModalBase {
  kind: 'link';
  url: string;
  /** What happened when the user asked to open it. */
  opened?: 'yes' | string;
  /** Reloads what a payment there changes (a checkout's screen), when the dialog closes. */
  refresh?: () => void;
  /**
   * A checkout session's id: while the dialog is open the session is watched, and the dialog
   * closes by itself once the payment lands (or the checkout is cancelled).
   */
  checkoutId?: string;
}

/** `d`: a row's full JSON, scrolled by the list keys. */
export interface DescribeModal extends ModalBase {
  kind: 'describe';
  value: object;
  /** The first line shown. */
  offset: number;
}

export type Modal = FormModal | ConfirmModal | SecretModal | LinkModal | DescribeModal;

/** The room the dialogs have: the screen's body. */
export interface ModalView {
  columns: number;
  rows: number;
}

export function confirmModal(options: Omit<ConfirmModal, 'kind' | 'input' | 'typed'> & { typed?: string }): ConfirmModal {
  return { ...options, kind: 'confirm', typed: options.typed ?? null, input: withText('') };
}

export type ModalStep =
  | { type: 'update'; modal: Modal }
  | { type: 'close' }
  /** Run the dialog's action (a form's submit with these values, a confirmation's run). */
  | { type: 'run'; modal: Modal }
  | { type: 'open'; url: string }
  | { type: 'copy'; text: string }
  | { type: 'none' };

function confirmKey(modal: ConfirmModal, input: string, key: Key): ModalStep {
  if (modal.typed === null) {
    if (key.return || input === 'y' || input === 'Y') return { type: 'run', modal };
    if (input === 'n' || input === 'N') return { type: 'close' };
    return { type: 'none' };
  }
  if (key.return) {
    if (modal.input.text === modal.typed) return { type: 'run', modal };
    return { type: 'update', modal: { ...modal, error: { text: `Type ${modal.typed} exactly to confirm, or Esc to keep it.`, field: null } } };
  }
  if (key.backspace || key.delete) return { type: 'update', modal: { ...modal, input: backspace(modal.input) } };
  if (!input || key.ctrl || key.meta) return { type: 'none' };
  return { type: 'update', modal: { ...modal, input: insert(modal.input, input.replace(/[\r\n]+/g, '')) } };
}

function describeKey(modal: DescribeModal, input: string, key: Key, view: ModalView): ModalStep {
  const room = describeRoom(view);
  const total = describeLines(modal.value, room.width).length;
  const offset = scrollBy(actionIn(listBindings, input, key), modal.offset, total, room.rows);
  if (offset !== null) return { type: 'update', modal: { ...modal, offset } };
  return key.return ? { type: 'close' } : { type: 'none' };
}

export function modalKey(modal: Modal, input: string, key: Key, view: ModalView): ModalStep {
  // A request in flight: its answer decides what comes next.
  if (modal.busy) return { type: 'none' };
  if (key.escape) return { type: 'close' };
  switch (modal.kind) {
    case 'form': {
      const step = formKey(modal.form, input, key);
      const next = { ...modal, form: step.form };
      return step.type === 'submit' ? { type: 'run', modal: next } : { type: 'update', modal: next };
    }
    case 'confirm':
      return confirmKey(modal, input, key);
    case 'secret':
      if (input === 'y') return { type: 'copy', text: modal.secret };
      return key.return ? { type: 'close' } : { type: 'none' };
    case 'link':
      return key.return || input === 'o' ? { type: 'open', url: modal.url } : { type: 'none' };
    case 'describe':
      return describeKey(modal, input, key, view);
  }
}
