"""One path policy for every reader and writer: rule patterns, read scopes, the read
guard for tools that find files themselves, and the files no command may change."""
