"""The embedded demo benchmark: a small synthetic AgenticVBench with the real layout and schema, plus runs.

`build_demo(dest)` writes a Hub-layout mirror (2-3 tasks per family, short low-resolution clips with audio,
repair cells with inline profiles in the official schema) and three runs to score: `perfect`, `partial` and
`broken`. `agenticvbench demo` and the test-suite both use it.
"""

from agenticvbench.demo.build import (
    GENERATOR_VERSION,
    DemoBenchmark,
    build_demo,
    default_demo_dir,
    is_complete,
)

__all__ = ["GENERATOR_VERSION", "DemoBenchmark", "build_demo", "default_demo_dir", "is_complete"]
