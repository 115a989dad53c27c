"""Pure text parsers for host command outputs and files (BUNDLE.md ``nodes/<node>/``).

Every parser is tolerant: junk lines are skipped, never raised on.
"""
