import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { streamChat, type ChatMessage } from './platform';

interface Props {
  /** The signed-in user's identity token. */
  token: string;
  /** After each answer, when the user's credits have changed. */
  onAnswered: () => void;
  onError: (error: unknown) => void;
}

export function Chat({ token, onAnswered, onError }: Props) {
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [draft, setDraft] = useState('');
  /** The answer while it streams in; null when none is. */
  const [answer, setAnswer] = useState<string | null>(null);
  const inFlight = useRef<AbortController | null>(null);

  // Signing out unmounts the chat: stop a stream that is still running.
  useEffect(() => () => inFlight.current?.abort(), []);

  async function send(event: FormEvent) {
    event.preventDefault();
    const question = draft.trim();
    if (question === '' || answer !== null) return;
    // The platform keeps no conversation: every request carries the whole of it.
    const conversation: ChatMessage[] = [...messages, { role: 'user', content: question }];
    setMessages(conversation);
    setDraft('');
    setAnswer('');
    const controller = new AbortController();
    inFlight.current = controller;
    let text = '';
    try {
      for await (const piece of streamChat(token, conversation, controller.signal)) {
        text += piece;
        setAnswer(text);
      }
      onAnswered();
    } catch (error) {
      // Stopped by the user: what was written so far is kept, and charged.
      if (controller.signal.aborted) onAnswered();
      else onError(error);
    } finally {
      if (text !== '') setMessages([...conversation, { role: 'assistant', content: text }]);
      setAnswer(null);
      inFlight.current = null;
    }
  }

  function sendOnEnter(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      event.currentTarget.form?.requestSubmit();
    }
  }

  return (
    <section className="chat">
      <ol>
        {messages.map((message, index) => (
          <li key={index} className={message.role}>
            {message.content}
          </li>
        ))}
        {answer !== null && <li className="assistant">{answer || '…'}</li>}
      </ol>
      <form onSubmit={(event) => void send(event)}>
        <textarea
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={sendOnEnter}
          placeholder="Ask anything (Enter sends, Shift+Enter adds a line)"
          rows={3}
        />
        {answer === null ? (
          <button type="submit">Send</button>
        ) : (
          <button type="button" onClick={() => inFlight.current?.abort()}>
            Stop
          </button>
        )}
      </form>
    </section>
  );
}
