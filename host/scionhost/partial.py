# SPDX-License-Identifier: BSD-2-Clause
"""Output that survives the guest, and the host: what `scion record`,
`scion probe record -o` and `scion trace -o` write while data arrives.

Each output file NAME is written as NAME.part first: appended to and
flushed as each chunk of data arrives, so that what reached the host is
on disk even if the host command itself is killed. When the command ends
(normally, or because the channel closed or the kernel stopped
answering: ChannelLost) it writes NAME whole and removes NAME.part, or
renames NAME.part to NAME when the part already is the final content.
Final files appear under their names whole: publish() writes a hidden
temporary file beside NAME and renames it.

A command that lost the channel keeps what arrived, says so in one line
(lost_reason() words it) and exits with EXIT_INCOMPLETE.
"""

import os
import tempfile

from .client import ScionError

EXIT_INCOMPLETE = 3         # the recording or trace ended early: the channel was lost
PART = ".part"


def lost_reason(error, seconds):
    """One line: what happened to the channel, seconds into the recording."""
    detail = getattr(error, "detail", None) or str(error)
    if getattr(error, "closed", True):
        return f"the channel closed after {seconds:.1f} s: {detail}"
    return f"the kernel stopped answering after {seconds:.1f} s: {detail}"


def _cannot_write(path, e):
    return ScionError(f"cannot write {path}: {e.strerror or e}")


class PartFile:
    """NAME.part, written as data arrives (every write flushed)."""

    def __init__(self, path, binary=True):
        self.path, self.part = path, path + PART
        try:
            self.f = open(self.part, "wb" if binary else "w",
                          **({} if binary else {"encoding": "utf-8"}))
        except OSError as e:
            raise _cannot_write(self.part, e) from None

    def write(self, data):
        try:
            self.f.write(data)
            self.f.flush()
        except OSError as e:
            raise _cannot_write(self.part, e) from None

    def flush(self):
        self.f.flush()

    def pwrite(self, offset, data):
        """Overwrite bytes at offset (a header's provisional counts); flushed."""
        try:
            self.f.flush()
            os.pwrite(self.f.fileno(), data, offset)
        except OSError as e:
            raise _cannot_write(self.part, e) from None

    def finish(self):
        """The part is the final content: it becomes NAME."""
        self.close()
        try:
            os.replace(self.part, self.path)
        except OSError as e:
            raise _cannot_write(self.path, e) from None

    def close(self):
        if not self.f.closed:
            self.f.close()

    def remove(self):
        """The final content was written elsewhere (publish), or there is none."""
        self.close()
        try:
            os.unlink(self.part)
        except FileNotFoundError:
            pass


def publish(path, fill, binary=True):
    """fill(f) writes a temporary file beside path, which then becomes path."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", dir=directory)
    except OSError as e:
        raise _cannot_write(path, e) from None
    try:
        with os.fdopen(fd, "wb" if binary else "w") as f:
            fill(f)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)       # mkstemp's file is private; a plain open's is not
        os.replace(tmp, path)
    except OSError as e:
        os.unlink(tmp)
        raise _cannot_write(path, e) from None
    except BaseException:
        os.unlink(tmp)
        raise
