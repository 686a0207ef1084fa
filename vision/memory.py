"""The reader's working memory: kept by the process from one frame to the next.

Reading a frame makes a few dozen pictures of the rectified board, of one to
four megabytes each (its Lab colours, the evidence, the strips' maps), and
lets them go when the reading is made.  The C library's allocator (glibc's
``malloc``) gives memory above its *trim threshold* back to the system as
soon as it is free, and serves blocks above its *mmap threshold* from fresh
pages; the dynamic thresholds it starts with are a few megabytes, below
what one read uses, so each frame asked for its memory anew: the system
then zeroes every page of it at first touch, some four thousand page faults
a frame, about a fifth of the read on the benchmark's machine
(``benchmarks/turns.py``).

:func:`keep_frame_memory` raises both thresholds once, for the whole process
(``mallopt``): blocks up to ``mmap_mb`` come from the allocator's heap and up
to ``keep_mb`` of free memory stay with the process, so the next frame reuses
the pages the last one touched.  The process then holds its largest frame's
working memory (tens of megabytes) between frames.  It is a setting of the
whole process, so the program that owns the process calls it, once, with
the numbers of ``ReaderConfig`` (``keep_memory_mb``; 0 leaves the allocator
as it is): ``willughby serve`` and ``willughby demo``, and the benchmarks
that time a read; a library call never does.  Where the C library is not glibc (no
``mallopt``, or one that ignores these), nothing changes, and nothing read
changes either way: only where its memory comes from.

>>> keep_frame_memory(0)
False
"""

from __future__ import annotations

import ctypes
import sys
import threading

__all__ = ["keep_frame_memory", "MMAP_MB"]

M_TRIM_THRESHOLD = -1          # glibc's mallopt parameters (malloc.h)
M_MMAP_THRESHOLD = -3
MMAP_MB = 32                   # the largest mmap threshold glibc takes on a 64-bit system (its HEAP_MAX / 2)

_lock = threading.Lock()
_kept: int | None = None


def keep_frame_memory(keep_mb: int, mmap_mb: int = MMAP_MB) -> bool:
    """Have the C library keep up to *keep_mb* megabytes of freed memory,
    and serve blocks up to *mmap_mb* from its heap (see the module); once a
    process (a later call with other numbers changes nothing).  True where
    the allocator took the numbers."""
    global _kept
    if keep_mb <= 0:
        return False
    with _lock:
        if _kept is not None:
            return _kept > 0
        _kept = 0
        if not sys.platform.startswith("linux"):
            return False
        try:
            mallopt = ctypes.CDLL(None).mallopt
        except (OSError, AttributeError):
            return False
        mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
        mallopt.restype = ctypes.c_int
        # the mmap threshold first: a C library that will not take it (a 32-bit one caps it at half a
        # megabyte) serves a frame's pictures from fresh pages whatever the trim threshold says, so the
        # allocator is then left as it was
        if mallopt(M_MMAP_THRESHOLD, min(mmap_mb, keep_mb) << 20) != 1:
            return False
        if mallopt(M_TRIM_THRESHOLD, keep_mb << 20) == 1:
            _kept = keep_mb
        return _kept > 0
