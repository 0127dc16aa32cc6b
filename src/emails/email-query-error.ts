import { ToolshedError } from '../core/errors/toolshed-error.js';

/**
 * Raised by `EmailStore.search` for a query with no searchable words.
 *
 * @example
 * ```ts
 * await emails.search('!!!', 'john.arnold@enron.example').catch((error) => error instanceof EmailQueryError); // true
 * ```
 */
export class EmailQueryError extends ToolshedError<'INVALID_QUERY'> {
  override readonly name = 'EmailQueryError';

  constructor(message: string) {
    super('INVALID_QUERY', message);
  }
}
