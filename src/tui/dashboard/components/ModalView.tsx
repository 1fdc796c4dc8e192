import { Box, Text } from 'ink';
import type { Editor } from '../../shared/editor.js';
import { Spinner } from '../../shared/Spinner.js';
import { describeLines, describeRoom } from '../describe.js';
import { fieldValue, isField, type FormState } from '../form.js';
import type { ConfirmModal, DescribeModal, LinkModal, Modal, SecretModal } from '../modal.js';
import { clampScroll, scrollPosition } from '../pager.js';

/** Text with the cursor drawn as an inverse cell. */
function Input({ editor, active }: { editor: Editor; active: boolean }) {
  if (!active) return <Text>{editor.text}</Text>;
  const at = editor.text[editor.cursor] ?? ' ';
  return (
    <Text>
      {editor.text.slice(0, editor.cursor)}
      <Text inverse>{at}</Text>
      {editor.text.slice(editor.cursor + 1)}
    </Text>
  );
}

function FormFields({ form, errorField }: { form: FormState; errorField: string | null }) {
  const labelWidth = Math.max(...form.fields.map((field) => field.spec.label.length)) + 2;
  return (
    <Box flexDirection="column">
      {form.fields.map((field, index) => {
        const active = index === form.focus;
        const wrong = isField(field.spec.name, errorField);
        return (
          <Box key={field.spec.name} flexDirection="column">
            <Text wrap="truncate-end">
              <Text color={wrong ? 'red' : active ? 'cyan' : undefined}>{`${active ? '›' : ' '} ${field.spec.label}`.padEnd(labelWidth + 2)}</Text>
              {field.spec.options ? (
                <Text inverse={active}>{`‹ ${fieldValue(field)} ›`}</Text>
              ) : (
                <Input editor={field.editor} active={active} />
              )}
            </Text>
            {active && field.spec.hint ? (
              <Text dimColor wrap="truncate-end">
                {' '.repeat(labelWidth + 2)}
                {field.spec.hint}
              </Text>
            ) : null}
          </Box>
        );
      })}
    </Box>
  );
}

function ConfirmBody({ modal }: { modal: ConfirmModal }) {
  if (modal.typed === null) {
    return (
      <Text dimColor wrap="wrap">
        y or Enter: {modal.confirmLabel} · n or Esc: keep it as it is
      </Text>
    );
  }
  return (
    <Box flexDirection="column">
      <Text wrap="wrap">
        Type <Text bold>{modal.typed}</Text> to confirm:
      </Text>
      <Text>
        <Text color="cyan">› </Text>
        <Input editor={modal.input} active={!modal.busy} />
      </Text>
      <Text dimColor>Enter: {modal.confirmLabel} · Esc: keep it</Text>
    </Box>
  );
}

function SecretBody({ modal }: { modal: SecretModal }) {
  return (
    <Box flexDirection="column">
      <Text color="yellow" wrap="wrap">
        ⚠ This is the only time the secret is shown: it cannot be read again. Copy it now.
      </Text>
      <Box marginY={1}>
        <Text bold color="green" wrap="wrap">
          {modal.secret}
        </Text>
      </Box>
      <Text dimColor>y copies it · Enter when you have saved it.</Text>
    </Box>
  );
}

function LinkBody({ modal }: { modal: LinkModal }) {
  return (
    <Box flexDirection="column">
      {modal.opened === 'yes' ? <Text color="green">Opened in your browser.</Text> : null}
      {modal.opened && modal.opened !== 'yes' ? (
        <Text color="red" wrap="wrap">
          {modal.opened}
        </Text>
      ) : null}
      <Text dimColor>Enter or o: open in your browser · Esc: close</Text>
    </Box>
  );
}

/** A row's JSON: the lines that fit, from the scrolled-to one, and where they are in the whole. */
function DescribeBody({ modal, width, height }: { modal: DescribeModal; width: number; height: number }) {
  const room = describeRoom({ columns: width, rows: height });
  const lines = describeLines(modal.value, room.width);
  const first = clampScroll(modal.offset, lines.length, room.rows);
  const position = scrollPosition(first, lines.length, room.rows);
  return (
    <Box flexDirection="column">
      {lines.slice(first, first + room.rows).map((line, index) => (
        <Text key={first + index}>{line}</Text>
      ))}
      <Text dimColor wrap="truncate-end">
        {position ? `${position} · ↑ ↓ PgUp PgDn Home End scroll · ` : ''}Esc closes
      </Text>
    </Box>
  );
}

/** A dialog, drawn in place of the screen's body; every key goes to it while it is open. */
export function ModalView({ modal, width, height }: { modal: Modal; width: number; height: number }) {
  if (modal.kind === 'describe') {
    return (
      <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1} width={width}>
        <Text bold wrap="truncate-end">
          {modal.title}
        </Text>
        <DescribeBody modal={modal} width={width} height={height} />
      </Box>
    );
  }
  return (
    <Box flexDirection="column">
      <Dialog modal={modal} width={width} />
      {/* An address goes under the frame, so that copying it picks up no border. */}
      {modal.kind === 'link' ? (
        <Text color="cyan" wrap="wrap">
          {modal.url}
        </Text>
      ) : null}
    </Box>
  );
}

function Dialog({ modal, width }: { modal: Modal; width: number }) {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={modal.kind === 'secret' ? 'yellow' : 'cyan'} paddingX={1} width={Math.min(width, 78)}>
      <Text bold wrap="truncate-end">
        {modal.title}
      </Text>
      {(modal.lines ?? []).map((line, index) => (
        <Text key={index} wrap="wrap">
          {line}
        </Text>
      ))}
      {modal.kind === 'form' ? (
        <>
          <FormFields form={modal.form} errorField={modal.error?.field ?? null} />
          <Text dimColor wrap="truncate-end">
            Enter: next field, on the last {modal.submitLabel} · Tab ↑ ↓: move · Esc: cancel
          </Text>
        </>
      ) : null}
      {modal.kind === 'confirm' ? <ConfirmBody modal={modal} /> : null}
      {modal.kind === 'secret' ? <SecretBody modal={modal} /> : null}
      {modal.kind === 'link' ? <LinkBody modal={modal} /> : null}
      {modal.busy ? <Spinner label="Working…" /> : null}
      {modal.error ? (
        <Text color="red" wrap="wrap">
          ✖ {modal.error.text}
        </Text>
      ) : null}
    </Box>
  );
}
