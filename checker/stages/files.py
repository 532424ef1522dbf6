"""Safe access to a submission's files: what may be opened, how, and which names are allowed.

Submissions are untrusted input: nothing is read through a link, a FIFO, a socket or a device, and
every file or folder name uses portable characters only (control, bidi, zero-width and non-ASCII
characters could hide or disguise a name).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from checker.format.errors import describe_char

SAFE_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
"""The portable file-name characters (POSIX): the only ones allowed in a submission's file names."""
LINK_MESSAGE = "symbolic links are not allowed in a submission"
NAME_RULE = "names may use only A-Z a-z 0-9 . _ -"


class RefusedFile(Exception):
    """A path that is not a regular, singly-linked file; it was not opened (or was closed unread)."""


def refusal(st: os.stat_result) -> str | None:
    """Why a file with this `lstat` result must not be read, or None for a plain regular file."""
    mode = st.st_mode
    if stat.S_ISLNK(mode):
        return "is a symbolic link: links are not followed"
    if not stat.S_ISREG(mode):
        return f"is {_kind(mode)}, not a regular file: refused without opening it"
    if st.st_nlink > 1:
        return f"is a hard link ({st.st_nlink} names for one file): links are not allowed; not read"
    return None


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "a special file"


def open_regular(path: Path) -> BinaryIO:
    """Open a regular file for reading, never through a link and never blocking.

    The path is checked with `lstat` first, so a FIFO, socket or device is refused without being
    opened (opening a FIFO would block, opening a terminal device could make it the controlling
    terminal); it is then opened with O_NOFOLLOW | O_NONBLOCK | O_NOCTTY and checked again, so it
    cannot be swapped in between.

    Raises:
        RefusedFile: the path is a link, a hard link or not a regular file.
        OSError: the path cannot be read (missing, or a link that leads nowhere).
    """
    before = os.lstat(path)
    if stat.S_ISLNK(before.st_mode):
        os.stat(path)  # a dangling link (or a loop) cannot be read at all: OSError, as for a missing file
    problem = refusal(before)
    if problem:
        raise RefusedFile(problem)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        after = os.fstat(fd)
        if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino) or refusal(after):
            raise RefusedFile("changed while it was being opened; not read")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def bad_char(name: str) -> str | None:
    """The first character of `name` that is not a portable file-name character, described; or None."""
    for ch in name:
        if ch not in SAFE_NAME_CHARS:
            return describe_char(ch)
    return None


def unsafe_name(name: str) -> str | None:
    """Why one file or folder name is refused, or None (portable characters only)."""
    bad = bad_char(name)
    return f"name contains {bad}: {NAME_RULE}" if bad else None
