"""The embedded demo benchmark: a small synthetic AgenticVBench with the real layout and schema, plus runs.

`build_demo(dest)` writes a Hub-layout mirror (2-3 tasks per family, short low-resolution clips with audio,
repair cells with inline profiles in the official schema) and three runs to score: `perfect`, `partial` and
`broken`. `agenticvbench demo` and the test-suite both use it. `build_demo(dest, size="full")` builds the same at the
real benchmark's task counts, ids, durations and frame sizes (`DemoSize`, in `agenticvbench.demo.sizes`).
"""

from agenticvbench.demo.build import (
    GENERATOR_VERSION,
    DemoBenchmark,
    build_demo,
    default_demo_dir,
    is_complete,
)
from agenticvbench.demo.sizes import DemoSize, get_size

__all__ = [
    "GENERATOR_VERSION",
    "DemoBenchmark",
    "DemoSize",
    "build_demo",
    "default_demo_dir",
    "get_size",
    "is_complete",
]
