"""The desks: lobbies, matches, people, read-only queries and analyses."""
