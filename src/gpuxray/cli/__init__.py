"""The command line: the only place that parses arguments, chooses the source, prints and exits."""
