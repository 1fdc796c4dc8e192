import type OpenAI from 'openai';
import { Conversations, type Turn } from './conversations.js';

const SYSTEM_PROMPT = 'You are a friendly assistant in a messaging app. Answer briefly, in plain text.';

export interface Bot {
  /** The answer to one incoming message, in the context of the sender's recent messages. */
  reply(sender: string, text: string): Promise<string>;
}

export function createBot(client: OpenAI, model: string): Bot {
  const conversations = new Conversations();
  return {
    async reply(sender, text) {
      const question: Turn = { role: 'user', content: text };
      const completion = await client.chat.completions.create({
        model,
        messages: [{ role: 'system', content: SYSTEM_PROMPT }, ...conversations.history(sender), question],
      });
      const answer = completion.choices[0]?.message.content ?? '';
      // Recorded only once answered, so a failed call leaves no half turn behind.
      conversations.record(sender, question, { role: 'assistant', content: answer });
      return answer;
    },
  };
}
