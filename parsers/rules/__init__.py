"""The offline rules parser (spaCy tokenizer, lookup lemmatizer and ``Matcher`` rules)."""

from .parser import RulesParser

__all__ = ["RulesParser"]
