"""What a session is (Agent, Conversation, Spend) and how Options become one."""
