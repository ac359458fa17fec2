"""Atomic file writes: every file the tooling produces goes through here.

A sweep can be killed at any instant (even with SIGKILL) and rerun; readers
must then see either the old file or the new one, never a torn one. Writing
to a temporary file in the same directory and renaming it over the target
gives that on POSIX file systems.
"""

import errno
import json
import os
import secrets
from pathlib import Path


def write_bytes(path, data):
    """Write bytes to path so that a crash leaves the old content or the new.

    A symbolic link stays a link: its target is written. Anything else that is not a regular file
    (/dev/stdout, a FIFO, a device) is written through, never replaced by a regular file.
    """
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))  # a dangling link too: its target is created
    if path.exists() and not path.is_file():
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        with open(path, "wb") as f:  # an error (ENOSPC on /dev/full) raises OSError on write or close
            f.write(data)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    # Not tempfile.mkstemp: its files are private (0600), results should get the umask's mode.
    tmp = path.parent / f".{path.name}.{secrets.token_hex(8)}.tmp"
    try:
        with open(tmp, "xb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        # Also on KeyboardInterrupt: leave no temporary file behind.
        tmp.unlink(missing_ok=True)
        raise


def write_text(path, text):
    """Write text (UTF-8, newlines as given) to path so that a crash leaves the old content or the new."""
    write_bytes(path, text.encode("utf-8"))


def write_json(path, data):
    """Write data as JSON, atomically; sorted keys so the same data always gives the same bytes."""
    write_text(path, json.dumps(data, indent=2, sort_keys=True) + "\n")


def remove_stale_temporaries(directory):
    """Delete temporary files left by a writer that was killed mid-write."""
    for tmp in Path(directory).glob(".*.tmp"):
        tmp.unlink(missing_ok=True)
