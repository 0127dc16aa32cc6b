/** A handler module that fails while loading, as one missing its configuration would. */
throw new Error('cannot start without a config file');
