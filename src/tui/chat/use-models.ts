import { useCallback, useRef } from 'react';
import type { z } from 'zod';
import type { Client } from '../../client/client.js';
import { clientOperations } from '../../client/operation-refs.js';
import type { ResponseOf } from '../../contract/operation.js';
import type { OpenAIModelList } from '../../contract/schemas/inference.js';
import { plainItems } from './picker.js';
import type { ChatStore } from './use-chat-state.js';

interface ModelsDeps {
  notice(text: string): void;
  failure(error: unknown): void;
  /** A model was chosen: the conversation goes on with it. */
  chosen(model: string): void;
}

/** The chat models the server serves, and switching between them (/model). */
export function useModels(client: Client, { dispatch, latest }: ChatStore, { notice, failure, chosen }: ModelsDeps) {
  /** Every chat model the server serves, every page of them; read once a session. */
  const chatModels = useRef<string[] | null>(null);
  const listModels = useCallback(async (): Promise<string[]> => {
    if (chatModels.current) return chatModels.current;
    const ids: string[] = [];
    let pageToken: string | null = null;
    do {
      const answer: ResponseOf<typeof clientOperations.models> = await client.call(clientOperations.models, {
        query: { page_size: 200, ...(pageToken ? { page_token: pageToken } : {}) },
      });
      // The OpenAI form, which the chat asks for; the Anthropic one comes only with Anthropic's headers.
      const page: z.infer<typeof OpenAIModelList> = 'next_page_token' in answer ? answer : { object: 'list', data: [], next_page_token: null };
      ids.push(...page.data.filter((m) => m.capabilities.includes('chat')).map((m) => m.id));
      pageToken = page.next_page_token;
    } while (pageToken);
    chatModels.current = ids;
    return ids;
  }, [client]);

  /** Switches to a model the server serves; anything else says why not, and nothing changes. */
  const chooseModel = useCallback(
    async (id: string) => {
      let models: string[];
      try {
        models = await listModels();
      } catch (error) {
        return failure(error);
      }
      if (!models.includes(id)) {
        const providers = [...new Set(models.map((m) => m.split('/')[0]))];
        const provider = id.includes('/') ? id.split('/')[0] : null;
        const why =
          provider && !providers.includes(provider)
            ? `No provider '${provider}' is configured on this server (it has ${providers.join(', ')}).`
            : `This server has no chat model '${id}'.`;
        return dispatch({ type: 'item', kind: 'error', text: `${why} /model lists the models.` });
      }
      dispatch({ type: 'model', model: id });
      chosen(id);
      notice(`Model: ${id}`);
    },
    [listModels, dispatch, chosen, notice, failure],
  );

  /** /model without an id: the models to pick from, the current one highlighted. */
  const openModelPicker = useCallback(async () => {
    try {
      const models = await listModels();
      const index = Math.max(0, models.indexOf(latest().model));
      dispatch({ type: 'picker', picker: { purpose: 'model', title: 'Model', items: plainItems(models), filter: '', index } });
    } catch (error) {
      failure(error);
    }
  }, [listModels, dispatch, latest, failure]);

  return { chooseModel, openModelPicker };
}
