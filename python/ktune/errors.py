"""ktune's exceptions: one base, ktune.Error, and a subclass per status of the C ABI."""


class Error(Exception):
    """Every failure ktune reports. `status` is the C ABI's ktune_status (0 where Python found it)."""

    status = 0

    def __init__(self, message, status=None):
        super().__init__(message)
        if status is not None:
            self.status = status


class InputError(Error, ValueError):
    """Bad input: an unsupported dtype, a non-contiguous inner dimension, a host
    tensor, mismatched shapes, a malformed problem or format."""

    status = 1


class DatabaseError(Error):
    """A database that is missing, corrupt, foreign or newer than this build."""

    status = 2


class NoGpuError(Error, RuntimeError):
    """No usable CUDA device."""

    status = 3


class CallError(Error, RuntimeError):
    """The call itself failed (a compile, a launch)."""

    status = 4


class NotFoundError(Error, LookupError):
    """A lookup with neither a tuned nor a default configuration."""

    status = 5


_BY_STATUS = {c.status: c for c in (InputError, DatabaseError, NoGpuError, CallError, NotFoundError)}


def error_for(status, message):
    """The exception for a C ABI status and its message."""
    return _BY_STATUS.get(status, CallError)(message, status)
