import OpenAI from 'openai';
import type { PlatformSettings } from './settings.js';

/** The platform's answer to the text channel operations. */
export interface Registration {
  channel: 'messenger';
  identifier: string | null;
  preferred_model: string | null;
  registered: boolean;
}

export function connect(settings: PlatformSettings): OpenAI {
  // The platform speaks the OpenAI API, so the official SDK works as is: only the base URL changes.
  return new OpenAI({ apiKey: settings.apiKey, baseURL: settings.apiUrl });
}

/**
 * Claims the page for this app on the platform's messenger channel. Registering again replaces
 * the app's earlier page; a page another app holds is refused (409).
 */
export function registerPage(client: OpenAI, pageId: string, model: string): Promise<Registration> {
  // Not an OpenAI operation, so through the SDK's generic request, which keeps its auth and retries.
  return client.post<Registration>('/text/messenger/register', { body: { identifier: pageId, preferred_model: model } });
}
