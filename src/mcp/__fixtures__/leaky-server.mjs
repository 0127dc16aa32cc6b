// An MCP server that cannot start and, like many, quotes its credential in the error it prints.
process.stderr.write(`starting\nauth failed: the API key ${process.env.LEAKY_API_KEY} was refused\n`);
process.exit(1);
