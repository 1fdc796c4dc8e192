/** A JSON object as parsed from an upstream's answer, read field by field. */
export type JsonObject = Record<string, unknown>;

/** Whether a parsed JSON value is an object (not null, not a list). */
export const isJsonObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
