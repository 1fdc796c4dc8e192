/** The client's defaults (each can be set in ~/.svc/config.json). */
export const chatDefaults = {
  /** Always available, offline and free, so the chat works on a fresh machine. */
  model: 'local/echo',
  embeddingModel: 'local/embed',
  /** Messages of history sent with each question. */
  contextMessages: 40,
  /** Largest file `/attach` inlines. */
  maxFileBytes: 256 * 1024,
  maxToolRounds: 8,
} as const;
