"""The network edge: the WebSocket transport and endpoint, an outbox, the client's files."""
