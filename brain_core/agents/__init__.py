"""The agents' side: hooks, set-up and the MCP server."""
