"""One exception tree. Only the CLI maps these to exit codes and one-line messages (DESIGN.md)."""

from __future__ import annotations


class GpuxrayError(Exception):
    """Base of every error gpuxray raises on purpose."""

    exit_code = 2


class InputError(GpuxrayError):
    """An input (bundle, file, archive, pasted text) is malformed, unsafe or unreadable.

    The message names the input, so a user can fix it without a traceback.
    """


class UsageError(GpuxrayError):
    """The command line asks for something that cannot be done (e.g. a pod that is not there)."""


class SourceError(GpuxrayError):
    """A live source could not be reached or refused a request."""
