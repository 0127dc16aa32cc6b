import type { ValidationIssue } from '../core/validation-issue.js';
import type { StandaloneValidator } from './standalone-validator.js';
import { toIssue } from './validation-errors.js';

/**
 * Run a validator generated ahead of time and phrase its errors like {@link compileValidator}'s:
 * `undefined` when valid, else the issues.
 */
export function runStandalone(validate: StandaloneValidator, value: unknown): ValidationIssue[] | undefined {
  if (validate(value)) return undefined;
  return (validate.errors ?? []).map(toIssue);
}
