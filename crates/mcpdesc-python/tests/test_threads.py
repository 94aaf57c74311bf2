"""An engine shared between threads: validation runs without the GIL, and every thread gets
the same report."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from mcpdesc import Engine, Report, clear_engine_cache, validate

from conftest import BAD_TOOL, VALID, many_tools


def test_other_python_threads_run_while_a_large_document_validates() -> None:
    engine = Engine()
    doc = many_tools(4000)
    engine.validate(doc)  # warm: the first call pays for lazily compiled schemas
    span: dict[str, float] = {}
    reports: list[Report] = []

    def work() -> None:
        span["start"] = time.perf_counter()
        reports.append(engine.validate(doc))
        span["end"] = time.perf_counter()

    worker = threading.Thread(target=work)
    samples: list[float] = []
    worker.start()
    while worker.is_alive():
        samples.append(time.perf_counter())
    worker.join()
    assert reports and reports[0].valid, reports[0].diagnostics[:3] if reports else "no report"
    # Held across the call, the GIL would let this thread run only at the call's edges (the
    # interpreter's switch interval is 5 ms). Released, it samples all through the call.
    start, end = span["start"], span["end"]
    assert end - start > 0.02, f"the validation took only {end - start:.4f} s; use a larger document"
    margin = 0.006
    inside = [t for t in samples if start + margin < t < end - margin]
    assert len(inside) > 100, f"{len(inside)} samples of the main thread during a {end - start:.3f} s validation"


def test_many_threads_on_one_engine_give_identical_reports() -> None:
    engine = Engine()
    sources: list[object] = [BAD_TOOL, VALID, many_tools(50), BAD_TOOL.encode()]
    expected = [engine.validate(s) for s in sources]  # type: ignore[arg-type]
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda i: engine.validate(sources[i % 4]), range(64)))  # type: ignore[arg-type]
    for i, report in enumerate(results):
        assert report == expected[i % 4]


def test_concurrent_first_calls_with_options_not_seen_before_agree() -> None:
    clear_engine_cache()
    barrier = threading.Barrier(6)

    def call(_: int) -> Report:
        barrier.wait()
        return validate(BAD_TOOL, select="mcpdesc.tool.*", protocol_versions=["2025-11-25"])

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(call, range(6)))
    assert all(r == results[0] for r in results)
    assert [d.rule for d in results[0].diagnostics] == ["mcpdesc.tool.closed"]
