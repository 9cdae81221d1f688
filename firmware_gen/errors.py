"""User-facing errors.

Every mistake a user can make (a bad file, an unsupported operator, a model that does not fit) raises a
subclass of `UserError`; the CLI prints its message as one line on stderr and exits with `exit_status`.
Anything else is a bug in firmware-gen and keeps its traceback.
"""


class UserError(Exception):
    exit_status = 2

    def __str__(self) -> str:
        # One line, whatever the message was built from.
        return " ".join(super().__str__().split())


class ModelFormatError(UserError):
    """The file is not a valid TFLite flatbuffer, or it references things that are not there."""


class UnsupportedModelError(UserError):
    """A valid TFLite model that firmware-gen cannot compile (operator, dtype, several subgraphs...)."""


class ToolchainError(UserError):
    """A compiler, emulator or other external tool is missing or failed."""


class DoesNotFitError(UserError):
    """The model needs more memory than the target has. flash_over: the bytes by which the image overflows the
    flash that holds the model's constants (0 when the flash is not what overflowed, or is not known)."""

    def __init__(self, message: str, flash_over: int = 0) -> None:
        super().__init__(message)
        self.flash_over = flash_over


class OutputPathError(UserError):
    """An output (-o, --plot) that cannot be written: a file where a directory is wanted, read-only, full..."""
