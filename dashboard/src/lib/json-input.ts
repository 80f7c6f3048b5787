/** Parses a JSON editor's text; `error` names the problem for the field. */
export function parseJsonText(text: string): { value?: unknown; error?: string } {
  if (!text.trim()) return { value: undefined };
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { error: `Not valid JSON: ${(err as Error).message}` };
  }
}

export const pretty = (value: unknown) => JSON.stringify(value ?? [], null, 2);
