/**
 * Errors of the template engine. `TemplateSyntaxError` comes from compiling
 * one template string (line within that string); `TemplateRenderError` is
 * what callers see: it names the config path of the faulty string, e.g.
 * `platforms.chat_b.fields[2].value`.
 */
export class TemplateSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
    this.name = 'TemplateSyntaxError';
  }
}

export class TemplateRenderError extends Error {
  readonly code = 'template_render_failed';
  /** The problem alone, without the path and line that `message` starts with. */
  readonly reason: string;

  constructor(
    message: string,
    /** Where the faulty string sits in the template config (empty for the config itself). */
    readonly path: string,
    /** 1-based line inside that string, when known. */
    readonly line?: number,
  ) {
    super(path ? `${path}${line ? ` (line ${line})` : ''}: ${message}` : message);
    this.reason = message;
    this.name = 'TemplateRenderError';
  }
}
