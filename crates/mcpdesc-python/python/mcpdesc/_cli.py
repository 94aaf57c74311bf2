"""The ``mcpdesc`` command of the package: the command line of the native engine, run in
this process, so that the wheel installs the same command as the standalone binary."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from . import _mcpdesc


def main(argv: Sequence[str] | None = None) -> int:
    """Runs ``mcpdesc`` with ``argv`` (default: ``sys.argv[1:]``) and returns its exit status,
    which the console script and ``python -m mcpdesc`` exit with."""
    args = sys.argv[1:] if argv is None else list(argv)
    # What Python buffered must come out before the command writes to the same descriptors.
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    with _signals_as_in_the_binary():
        return _mcpdesc.main(["mcpdesc", *args])


@contextmanager
def _signals_as_in_the_binary() -> Iterator[None]:
    """Gives SIGINT and SIGPIPE the dispositions they have in the standalone binary while the
    command runs, and gives Python its own back afterwards.

    SIGINT: Python's handler only sets a flag the interpreter checks between bytecodes, never
    while the native command runs, so Ctrl-C would not stop ``mcpdesc server`` or a long
    ``check-server``. The default disposition ends the process, as it ends the binary.

    SIGPIPE: the binary's runtime ignores it, and the command takes a closed pipe for the end
    of the wanted output (``mcpdesc rules list | head`` exits 0 without a message). Ignored
    here too, whatever the interpreter was started with.
    """
    # Only the main thread may set handlers; a command run from another thread keeps the
    # program's.
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wanted = [(signal.SIGINT, signal.SIG_DFL)]
    if hasattr(signal, "SIGPIPE"):  # not on Windows
        wanted.append((signal.SIGPIPE, signal.SIG_IGN))
    saved = [(signum, signal.signal(signum, disposition)) for signum, disposition in wanted]
    try:
        yield
    finally:
        for signum, previous in reversed(saved):
            # A handler installed outside Python reads as None and cannot be put back.
            if previous is not None:
                signal.signal(signum, previous)
