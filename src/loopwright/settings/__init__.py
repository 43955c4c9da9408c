"""Settings files (user, project, local, managed) and project memory (AGENTS.md, CLAUDE.md)."""
