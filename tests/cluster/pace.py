"""The pace of the cluster tests' nodes and the bound of their long waits (shared by
test_site.py and test_tls.py)."""

#: The nodes' table pace: fast bots, short pauses between rounds.
FAST = ["--bot-delay", "0.05,0.15", "--round-pause", "0.3"]
#: The bound of waits for a whole phase (a match to its end, a takeover): generous.
LONG = 120.0
