/** A tool the client runs itself (memory, vault, admin tools), offered to the model. */
export interface ClientTool {
  definition: { type: 'function'; function: { name: string; description?: string; parameters?: Record<string, unknown> } };
  /** Tools that change something need the user's approval before they run. */
  writes: boolean;
  /** Runs the tool; the text is what the model reads back. Never throws for bad arguments. */
  run(args: unknown): Promise<string>;
  /** What an approval shows of a call (its raw arguments), when a tool can say it better than its name and JSON. */
  summarize?(rawArguments: string): string;
}

/** A type, not an interface: it must fit the contract's request body, whose objects allow more keys. */
export type ToolCall = {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
};

/** A message as the API takes it. */
export type WireMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; content: string; tool_call_id: string };

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** What the server charged for the completion, in credits (svc's usage carries it). */
  cost?: number;
}

/** What a turn reports as it goes, for a screen (or a pipe) to show. */
export type TurnEvent =
  | { type: 'delta'; text: string }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'tool_result'; call: ToolCall; result: string; declined: boolean }
  /** A finished message of the turn, to keep in the conversation (and the memory). */
  | { type: 'message'; message: WireMessage; cancelled?: boolean }
  /** A completion's usage; `model`: the model that answered (a route may serve another than asked). */
  | { type: 'usage'; usage: Usage; model: string | null };

/** Where the chat's input history lives between sessions. */
export interface InputHistory {
  /** Oldest first. */
  entries(): string[];
  add(text: string): void;
}
