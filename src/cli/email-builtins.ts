import { existsSync } from 'node:fs';
import type { MoreBuiltins } from '../config/validate-config.js';
import type { EmailStore } from '../emails/email-store.js';
import type { ToolshedStore } from '../store/index.js';
import type { CliIo } from './output.js';
import { isSqliteFile, serviceDatabaseUrl } from './serve/open-service-store.js';

/** The email tools' names, known without loading them. */
const EMAIL_TOOL_NAMES: readonly string[] = ['email_search', 'email_get', 'email_inboxes'];

/**
 * The email tools a configuration may name (`builtins: [email_search]`), over the corpus in the
 * service's database (`TOOLSHED_DATABASE_URL`, default `./toolshed.db`): the one `toolshed emails
 * import` fills and `toolshed serve` searches. The database is opened at the first call of an email
 * tool, never to list or export them, and brought up to date as the `emails` verbs do. While a SQLite
 * database is not there, the tools answer as over an empty corpus (saying how to fill it) and create
 * no file; it is looked for again at the next call. `close()` closes what was opened.
 *
 * Under `toolshed serve` the service's own email tools, over its open store, take these tools' place.
 *
 * @example
 * ```ts
 * const emails = emailBuiltins(io);
 * const loaded = await loadConfig('toolshed.yaml', { moreBuiltins: emails.builtins });
 * await loaded.registry.call('email_inboxes', {});
 * await loaded.close();
 * await emails.close();
 * ```
 */
export function emailBuiltins(io: CliIo): { builtins: MoreBuiltins; close(): Promise<void> } {
  const url = serviceDatabaseUrl(io);
  /** The stores opened and brought up to date; a store whose migration failed is closed at once. */
  const stores: ToolshedStore[] = [];
  let corpus: Promise<EmailStore> | undefined;
  let empty: Promise<EmailStore> | undefined;
  const open = async (where: string): Promise<EmailStore> => {
    const [{ createStore }, { EmailStore }] = await Promise.all([
      import('../store/index.js'),
      import('../emails/email-store.js'),
    ]);
    const store = await createStore(where, { notifications: false });
    try {
      await store.migrate();
    } catch (error) {
      await store.close();
      throw error;
    }
    stores.push(store);
    return new EmailStore(store);
  };
  const emails = (): Promise<EmailStore> => {
    if (corpus !== undefined) return corpus;
    if (isSqliteFile(url) && !existsSync(url)) {
      empty ??= open(':memory:');
      return empty;
    }
    corpus = open(url);
    // A database that could not be opened (a server down) is tried again at the next call.
    corpus.catch(() => {
      corpus = undefined;
    });
    return corpus;
  };
  return {
    builtins: {
      names: EMAIL_TOOL_NAMES,
      create: async () => (await import('../emails/email-tools.js')).createEmailTools({ emails }),
    },
    close: async () => {
      // An open under way finishes first, so that the store it makes is closed too.
      await Promise.allSettled([corpus, empty]);
      for (const store of stores.splice(0)) await store.close();
    },
  };
}
