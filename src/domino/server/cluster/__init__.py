"""Between nodes: the Redis router, leases, and commands forwarded to a match's owner."""
