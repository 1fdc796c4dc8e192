import { z } from 'zod';

/** A query flag as OpenAI's SDKs send it: the words `true` or `false`. */
const QueryFlag = z.enum(['true', 'false']).transform((value) => value === 'true');

/** `GET /responses/{id}`: the stored response, or (stream=true) its events replayed and followed. */
export const ResponseGetQuery = z.strictObject({
  stream: QueryFlag.optional().describe('true: the events of a background response created with stream: true, replayed, then followed until it ends'),
  starting_after: z.coerce.number().int().min(0).optional().describe('With stream=true: only the events after this sequence_number'),
  include: z.string().optional().describe('Accepted for OpenAI compatibility; the stored response is answered whole'),
});

/** `GET /responses/{id}/input_items`: OpenAI's cursor paging. */
export const InputItemsQuery = z.strictObject({
  order: z.enum(['asc', 'desc']).default('desc').describe('asc: oldest item first; desc (default): newest first'),
  after: z.string().min(1).optional().describe('The page after this item id'),
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Items per page (1 to 100, default 20)'),
  include: z.string().optional().describe('Accepted for OpenAI compatibility; items are answered whole'),
});

/** One content part of a message item: input_text, input_image, input_file, output_text, refusal, … */
const ContentPart = z.looseObject({ type: z.string() });

/** An input item as OpenAI lists it: a message with typed content parts, a function call or its output, … */
export const InputItem = z.looseObject({
  type: z.string(),
  id: z.string(),
  role: z.string().optional(),
  content: z.array(ContentPart).optional(),
});

export const InputItemList = z.object({
  object: z.literal('list'),
  data: z.array(InputItem),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
});
