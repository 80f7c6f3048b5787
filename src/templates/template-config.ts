import { isObject, isV2, PLATFORM_KEYS, TEMPLATE_STRING_KEYS, VARIANT_KEYS } from '../formatting/config-variant';
import { EMBED_LIMITS } from '../formatting/embed';
import { TemplateSyntaxError } from '../formatting/errors';
import { TELEGRAM_TAGS } from '../formatting/telegram-html';
import { checkTemplate } from '../formatting/template-engine';

/**
 * Validation of a message template `config` when it is saved (and before a
 * preview): the shape of v1 and v2 configs, and every template string
 * compiled, so a broken template is rejected with its path and line instead
 * of failing deliveries later.
 */

export interface TemplateConfigProblem {
  path: string;
  message: string;
  line?: number;
}

const MAX_CONFIG_CHARS = 100_000;
const MAX_BLOCKS = 50;
const STRING_KEYS = new Set<string>(TEMPLATE_STRING_KEYS);
const TELEGRAM_ALLOWED = new Set<string>([...TELEGRAM_TAGS, 'br']);

function join(prefix: string, key: string): string {
  return prefix ? `${prefix}.${key}` : key;
}

function checkString(source: unknown, path: string, mode: 'text' | 'html', problems: TemplateConfigProblem[]): void {
  if (typeof source !== 'string') {
    problems.push({ path, message: 'must be a string' });
    return;
  }
  try {
    checkTemplate(source, mode);
  } catch (err) {
    if (!(err instanceof TemplateSyntaxError)) throw err;
    problems.push({ path, message: err.message, line: err.line });
  }
}

/** Tags written in the template itself that chat_c does not accept (they would be shown escaped). */
function checkTelegramTags(source: string, path: string, problems: TemplateConfigProblem[]): void {
  const literal = source.replace(/\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}|\{#[\s\S]*?#\}/g, (m) => m.replace(/[^\n]/g, ' '));
  for (const m of literal.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9-]*)/g)) {
    if (!TELEGRAM_ALLOWED.has(m[1].toLowerCase())) {
      problems.push({
        path,
        line: literal.slice(0, m.index).split('\n').length,
        message: `<${m[1]}> is not supported by chat_c; use ${TELEGRAM_TAGS.join(', ')}`,
      });
    }
  }
}

function checkBlocks(value: unknown, path: string, problems: TemplateConfigProblem[]): void {
  if (typeof value === 'string') checkString(value, path, 'text', problems);
  else if (Array.isArray(value)) value.forEach((item, i) => checkBlocks(item, `${path}[${i}]`, problems));
  else if (isObject(value)) for (const [k, v] of Object.entries(value)) checkBlocks(v, `${path}.${k}`, problems);
}

function checkVariant(variant: unknown, prefix: string, problems: TemplateConfigProblem[]): void {
  if (!isObject(variant)) {
    problems.push({ path: prefix, message: 'must be an object' });
    return;
  }
  for (const [key, value] of Object.entries(variant)) {
    const path = join(prefix, key);
    if (key === 'version' && !prefix) continue;
    if (!VARIANT_KEYS.includes(key)) {
      problems.push({ path, message: `unknown key; a template config has ${VARIANT_KEYS.join(', ')}` });
    } else if (STRING_KEYS.has(key)) {
      checkString(value, path, key === 'telegram_html' ? 'html' : 'text', problems);
      if (key === 'telegram_html' && typeof value === 'string') checkTelegramTags(value, path, problems);
    } else if (key === 'color') {
      if (typeof value === 'number') {
        if (!Number.isInteger(value) || value < 0 || value > 0xffffff) problems.push({ path, message: 'must be an integer from 0 to 16777215' });
      } else checkString(value, path, 'text', problems);
    } else if (key === 'timestamp') {
      if (typeof value !== 'boolean') checkString(value, path, 'text', problems);
    } else if (key === 'fields') {
      checkFields(value, path, problems);
    } else if (key === 'slack_blocks') {
      if (!Array.isArray(value)) problems.push({ path, message: 'must be an array of blocks' });
      else if (value.length > MAX_BLOCKS) problems.push({ path, message: `at most ${MAX_BLOCKS} blocks` });
      else {
        value.forEach((block, i) => {
          if (!isObject(block) || typeof block.type !== 'string') problems.push({ path: `${path}[${i}]`, message: 'a block is an object with a string "type"' });
        });
        checkBlocks(value, path, problems);
      }
    }
  }
}

function checkFields(value: unknown, path: string, problems: TemplateConfigProblem[]): void {
  if (!Array.isArray(value)) {
    problems.push({ path, message: 'must be an array of {name, value, inline?}' });
    return;
  }
  if (value.length > EMBED_LIMITS.fields) problems.push({ path, message: `at most ${EMBED_LIMITS.fields} fields` });
  value.forEach((field, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(field)) {
      problems.push({ path: at, message: 'a field is an object {name, value, inline?}' });
      return;
    }
    for (const key of Object.keys(field)) {
      if (!['name', 'value', 'inline'].includes(key)) problems.push({ path: `${at}.${key}`, message: 'unknown key; a field has name, value, inline' });
    }
    if (field.name === undefined && field.value === undefined) problems.push({ path: at, message: 'a field needs a name or a value' });
    if (field.name !== undefined) checkString(field.name, `${at}.name`, 'text', problems);
    if (field.value !== undefined) checkString(field.value, `${at}.value`, 'text', problems);
    if (field.inline !== undefined && typeof field.inline !== 'boolean') problems.push({ path: `${at}.inline`, message: 'must be true or false' });
  });
}

/** `[]` when the config is valid; otherwise every problem with its path (and line inside a template string). */
export function validateTemplateConfig(config: unknown): TemplateConfigProblem[] {
  if (!isObject(config)) return [{ path: '', message: 'config must be an object (v1 flat, or {"version": 2, "platforms": {...}})' }];
  if (JSON.stringify(config).length > MAX_CONFIG_CHARS) return [{ path: '', message: `config is larger than ${MAX_CONFIG_CHARS} characters` }];
  const problems: TemplateConfigProblem[] = [];
  if (config.version !== undefined && ![1, 2, '1', '2'].includes(config.version as number)) {
    problems.push({ path: 'version', message: 'version must be 1 (flat) or 2 (per platform)' });
    return problems;
  }
  if (!isV2(config)) {
    checkVariant(config, '', problems);
    return problems;
  }
  for (const key of Object.keys(config)) {
    if (key !== 'version' && key !== 'platforms') problems.push({ path: key, message: 'a version 2 config has only "version" and "platforms"' });
  }
  if (!isObject(config.platforms)) {
    problems.push({ path: 'platforms', message: `platforms must be an object with keys among ${PLATFORM_KEYS.join(', ')}` });
    return problems;
  }
  for (const [key, variant] of Object.entries(config.platforms)) {
    if (!PLATFORM_KEYS.includes(key)) problems.push({ path: `platforms.${key}`, message: `unknown platform; use ${PLATFORM_KEYS.join(', ')}` });
    else checkVariant(variant, `platforms.${key}`, problems);
  }
  return problems;
}
