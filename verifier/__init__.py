"""rulespec: formal rules specifications for board and card games, with a verifier."""

__version__ = "0.1.0"
