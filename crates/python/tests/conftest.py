import os
import pathlib

import pytest

import schedsim


@pytest.fixture(scope="session")
def workload(tmp_path_factory) -> pathlib.Path:
    """A generated Lublin-Feitelson workload: 2,000 jobs on 64 nodes, f-model
    estimates (so backfilling has something to work with)."""
    path = tmp_path_factory.mktemp("w") / "lublin.swf"
    schedsim.generate("lublin", path, jobs=2000, procs=64, seed=7, load=0.85, estimate="f:3")
    return path


@pytest.fixture(scope="session")
def kth() -> pathlib.Path:
    traces = os.environ.get("SCHEDSIM_TRACES")
    if not traces:
        pytest.skip("SCHEDSIM_TRACES is not set: the real-trace checks need the KTH log")
    path = pathlib.Path(traces) / "KTH-SP2-1996-2.1-cln.swf.gz"
    if not path.exists():
        pytest.skip(f"{path} is missing")
    return path
