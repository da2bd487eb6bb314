"""`near_copy_of_input` holds for its class: the agent's input film stays a near copy under the small transforms
an agent can apply (trims, frame rates, speed, scale, crop, colour grade), and honest outputs (a real cut, an
unrelated clip, the film's sound under other pictures) stay unflagged."""

from __future__ import annotations

from pathlib import Path

import pytest
from adversarial import ffmpeg

from agenticvbench.integrity.copies import nearly_same_media

SIZE = "320x180"
SCENES = (  # (video source, seconds, sound): different pictures and loudness per scene, one silence
    ("testsrc2=s={s}:r=24", 6, "sine=f=440:r=48000,volume=0.8"),
    ("mandelbrot=s={s}:r=24", 6, "sine=f=660:r=48000,volume=0.2"),
    ("gradients=s={s}:r=24:speed=0.05", 6, "sine=f=300:r=48000,volume=0.5"),
    ("smptehdbars=s={s}:r=24", 4, "anullsrc=r=48000:cl=mono"),
    ("testsrc=s={s}:r=24", 6, "sine=f=220:r=48000,volume=0.35"),
)
X264 = ("-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac")

TRANSFORMS = {  # name -> ffmpeg arguments between the input and the encoder
    "re-encoded": (),
    "first 2 s trimmed": ("-ss", "2"),
    "last 2 s trimmed": ("-t", "26"),
    "2 s trimmed at both ends": ("-ss", "2", "-t", "24"),
    "24 to 30 fps": ("-vf", "fps=30"),
    "24 to 12.5 fps": ("-vf", "fps=12.5"),
    "5 % faster": ("-vf", "setpts=PTS/1.05", "-af", "atempo=1.05"),
    "5 % slower": ("-vf", "setpts=PTS/0.95", "-af", "atempo=0.95"),
    "a quarter of the area": ("-vf", "scale=160:90"),
    "10 % cropped, centred": ("-vf", "crop=iw*0.9:ih*0.9"),
    "10 % of the width cropped on the left": ("-vf", "crop=iw*0.9:ih:iw*0.1:0"),
    "graded": ("-vf", "eq=contrast=1.2:saturation=1.3:brightness=0.05"),
    "hue turned": ("-vf", "hue=h=20"),
    "all at once": (
        "-ss",
        "1",
        "-af",
        "atempo=1.05",
        "-vf",
        "setpts=PTS/1.05,crop=iw*0.9:ih*0.9,scale=160:90,eq=contrast=1.2:brightness=0.05,fps=30",
    ),  # fmt: skip
}


@pytest.fixture(scope="module")
def film(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 28-s synthetic input film at 320x180, 24 fps, with sound (built once for the module)."""
    out = tmp_path_factory.mktemp("film") / "film.mp4"
    args: list[str] = []
    for video, seconds, _ in SCENES:
        args += [
            "-f",
            "lavfi",
            "-i",
            f"{video.format(s=SIZE)},trim=duration={seconds},format=yuv420p,setsar=1",
        ]
    for _, seconds, sound in SCENES:
        args += ["-f", "lavfi", "-i", f"{sound},atrim=duration={seconds}"]
    n = len(SCENES)
    pairs = "".join(f"[{i}:v][{n + i}:a]" for i in range(n))
    ffmpeg(
        *args,
        "-filter_complex",
        f"{pairs}concat=n={n}:v=1:a=1[v][a]",
        "-map",
        "[v]",
        "-map",
        "[a]",
        *X264,
        str(out),
    )
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_the_film_under_a_small_transform_is_a_near_copy(film, tmp_path, name):
    """Each transform keeps the film the film: its pictures and sound, second by second after the alignment
    (speed and shift) and the crops tried, so the output is flagged."""
    out = tmp_path / "final.mp4"
    ffmpeg("-i", str(film), *TRANSFORMS[name], *X264, str(out))
    assert nearly_same_media(out, film), name


@pytest.mark.slow
def test_honest_outputs_are_not_near_copies(film, tmp_path):
    """A real cut (three disjoint 2-s pieces, a fifth of the film), an unrelated clip of the film's length, and
    the film's own sound under other pictures are not near copies; the unrelated clip and the borrowed sound
    last as long as the film, so the signatures decide, not the length."""
    cut = tmp_path / "cut.mp4"
    pieces = "".join(
        f"[0:v]trim={a}:{a + 2},setpts=PTS-STARTPTS[v{i}];[0:a]atrim={a}:{a + 2},asetpts=PTS-STARTPTS[a{i}];"
        for i, a in enumerate((1, 12, 23))
    )
    ffmpeg(
        "-i", str(film), "-filter_complex", pieces + "[v0][a0][v1][a1][v2][a2]concat=n=3:v=1:a=1[v][a]",
        "-map", "[v]", "-map", "[a]", *X264, str(cut),
    )  # fmt: skip
    other = tmp_path / "other.mp4"
    ffmpeg(
        "-f", "lavfi", "-i", f"cellauto=s={SIZE}:r=24,trim=duration=28",
        "-f", "lavfi", "-i", "sine=f=330:r=48000:d=28,volume='0.3+0.3*sin(t)':eval=frame", *X264, str(other),
    )  # fmt: skip
    dubbed = tmp_path / "dubbed.mp4"
    ffmpeg(
        "-f", "lavfi", "-i", f"rgbtestsrc=s={SIZE}:r=24,trim=duration=28", "-i", str(film),
        "-map", "0:v", "-map", "1:a", *X264, str(dubbed),
    )  # fmt: skip
    assert not nearly_same_media(cut, film)
    assert not nearly_same_media(other, film)
    assert not nearly_same_media(dubbed, film)
    assert nearly_same_media(film, film), "the comparison itself works on this film"
