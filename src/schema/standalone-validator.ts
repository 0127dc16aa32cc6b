import type { ErrorObject } from 'ajv';

/** A validator generated ahead of time (Ajv standalone): true when valid, else `errors` says why. */
export interface StandaloneValidator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}
