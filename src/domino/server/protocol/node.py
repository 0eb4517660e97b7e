"""Node → node: the messages one node of a cluster sends another over Redis."""
