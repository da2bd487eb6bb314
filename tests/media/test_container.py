"""Opening media: a file that does not open is named once, in words (no errno number, no repeated path)."""

from __future__ import annotations

import pytest

from agenticvbench.errors import MediaError
from agenticvbench.media import probe


def test_a_file_that_is_not_media_is_named_once_in_words(tmp_path) -> None:
    """Regression: reasons read "cannot open ([Errno 1094995529] Invalid data found when processing input:
    '<path>')", the path twice and libav's errno number in the middle."""
    bad = tmp_path / "final.mp4"
    bad.write_bytes(b"\x00\x00\x00\x18ftypisom" + b"\x00" * 64)
    with pytest.raises(MediaError) as info:
        probe(bad)
    msg = str(info.value)
    assert msg == f"{bad}: not a readable media file (truncated, or not audio/video at all)"
    assert "Errno" not in msg and msg.count(str(bad)) == 1
