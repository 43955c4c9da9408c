"""Host mode: loopwright as the engine behind the official Claude Agent SDKs.

``loopwright --output-format stream-json --verbose --input-format stream-json`` speaks the
Claude Code CLI's protocol on stdin/stdout (see docs in shared/reference): one session per
process, one turn and one ``result`` line per user message, and the JSON control protocol
both ways (permissions, hooks and in-process MCP tools answered by the SDK).
"""
