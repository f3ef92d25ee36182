"""Shared fixtures: the repository root, the bundled URDFs and the `contour` command line."""

from __future__ import annotations

import os
import pathlib
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
ARM7_URDF = ROOT / "crates" / "model" / "data" / "arm7.urdf"
PANDA_URDF = ROOT / "crates" / "model" / "data" / "panda.urdf"


def cli_binary() -> pathlib.Path | None:
    """The `contour` binary of the workspace build (CI builds it before the Python stage)."""
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    for p in (target / "debug" / "contour", target / "release" / "contour"):
        if p.exists():
            return p
    found = shutil.which("contour")
    return pathlib.Path(found) if found else None


@pytest.fixture
def cli():
    p = cli_binary()
    if p is None:
        why = "the `contour` binary is not built (cargo build --bin contour)"
        if os.environ.get("CONTOUR_REQUIRE_CLI"):
            pytest.fail(why)
        pytest.skip(why)
    return p
