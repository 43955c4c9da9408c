"""The OpenAI Agents layer's implementation, by concept; the public modules re-export it."""
