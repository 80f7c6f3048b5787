import { z } from 'zod';
import { FILTER_OPERATORS, LOGICS } from '../common/types';
import { validateCondition } from '../conditions/conditions';
import { FIELD_REF } from '../conditions/field-path';

/**
 * Input schemas shared by filter conditions, typing-rule conditions and
 * routing-rule conditions: one check (src/conditions), so an invalid field
 * path or regex is refused on save with the offending key named.
 */
export const logicSchema = z.enum(LOGICS, { message: 'must be AND or OR' });

export const conditionSchema = z
  .object({
    field: z.string({ message: 'must be "header.<Name>" or "body.<dot.path>"' }).max(500).regex(FIELD_REF, 'must be "header.<Name>" or "body.<dot.path>"'),
    operator: z.enum(FILTER_OPERATORS, { message: `must be one of ${FILTER_OPERATORS.join(', ')}` }),
    value: z.string({ message: 'must be a string' }).max(1000).default(''),
  })
  .superRefine((condition, ctx) => {
    const problem = validateCondition(condition);
    if (!problem) return;
    const key = problem.startsWith('field') ? 'field' : problem.startsWith('operator') ? 'operator' : 'value';
    ctx.addIssue({ code: 'custom', message: problem, path: [key] });
  });
