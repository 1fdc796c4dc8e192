/**
 * The tools the platform knows, in the OpenAI function-tool format. A client offers them to a
 * model; `image_model` on a request overrides the `model` argument of image generation calls.
 */
export const IMAGE_TOOL_NAME = 'generate_image';

export const toolCatalog = [
  {
    type: 'function' as const,
    function: {
      name: IMAGE_TOOL_NAME,
      description: 'Generate an image from a text prompt.',
      parameters: {
        type: 'object',
        properties: {
          prompt: { type: 'string', description: 'What the image shows' },
          model: { type: 'string', description: 'Image model (the request’s image_model overrides it)' },
          size: { type: 'string', enum: ['256x256', '512x512', '1024x1024'], default: '1024x1024' },
        },
        required: ['prompt'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'search_memory',
      description: 'Search the user’s past conversations (client-side memory) for relevant messages.',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string' },
          limit: { type: 'integer', minimum: 1, default: 8 },
          minSimilarity: { type: 'number', minimum: 0, maximum: 1, default: 0.3 },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
  },
];
