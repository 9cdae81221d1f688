"""`firmware-gen sweep SPEC.toml [-o RESULTS_DIR] [--jobs N | --ray auto|ADDRESS]`: every job of the spec not
already in the results folder, on the local pool or a Ray cluster, each row written as its job ends, then the CSV
and the page. Everything that can be refused is refused before the first job: the spec, the folder, the cluster."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from firmware_gen.errors import UserError
from firmware_gen.sweep.job import failed_row, run_job
from firmware_gen.sweep.local_pool import LocalExecutor
from firmware_gen.sweep.page import write_page
from firmware_gen.sweep.results import PAGE, ROWS, ResultsDir
from firmware_gen.sweep.spec import read_spec
from firmware_gen.target.boards import load_board


@dataclass
class SweepSummary:
    folder: Path
    jobs: int
    ran: int  # now; the others were in the folder already
    failed: int
    not_bit_exact: int

    def format(self) -> str:
        return (f"wrote {self.folder}/{ROWS}, results.csv and {PAGE}: {self.jobs} jobs ({self.ran} run now, "
                f"{self.jobs - self.ran} from before), {self.failed} failed, {self.not_bit_exact} not bit-exact "
                f"with TFLM")

    @property
    def all_passed(self) -> bool:
        return self.failed == 0 and self.not_bit_exact == 0

    def to_json(self) -> dict:
        return {"folder": str(self.folder), "jobs": self.jobs, "ran": self.ran, "failed": self.failed,
                "not_bit_exact": self.not_bit_exact}


def make_executor(jobs: int | None, ray: str | None) -> object:
    """The Ray executor connected to `ray` (auto or HOST:PORT), else the local pool of `jobs` workers."""
    if ray is not None:
        from firmware_gen.sweep.ray_pool import RayExecutor

        return RayExecutor(ray)
    if jobs is not None and jobs < 1:
        raise UserError(f"--jobs {jobs}: expected 1 or more")
    return LocalExecutor(jobs)


def _read_models(paths: set[str]) -> dict[str, bytes]:
    models = {}
    for path in sorted(paths):
        try:
            models[path] = Path(path).read_bytes()
        except OSError as error:
            raise UserError(f"{path}: cannot read ({error.strerror})") from None
    return models


def run_sweep(spec_path: str, out: str | None = None, jobs: int | None = None, ray: str | None = None,
              progress: bool = True) -> SweepSummary:
    spec = read_spec(spec_path)
    results = ResultsDir.check(out or f"{Path(spec_path).stem}-results", spec)
    todo = [job for job in spec.jobs() if not results.done(job.key)]
    models = _read_models({job.path for job in todo})
    boards = {name: load_board(name) for name in spec.boards}
    executor = make_executor(jobs, ray)
    try:
        holds = [executor.board_resource(boards[job.board]) for job in todo]
        results.start()
        calls = [(job, models[job.path]) for job in todo]
        failed = 0
        with tqdm(total=len(spec.jobs()), initial=len(spec.jobs()) - len(todo), unit="job", file=sys.stderr,
                  desc="sweep", disable=not progress, dynamic_ncols=True) as bar:
            for index, result, node in executor.run(run_job, calls, holds):
                row = result if isinstance(result, dict) else failed_row(todo[index], result)
                row["node"] = node or None
                if results.add(row):
                    failed += row["error"] is not None
                    bar.set_postfix(failed=failed, refresh=False)
                    bar.update(1)
    finally:
        executor.close()
        results.close()
    results.write_table()
    rows = results.ordered()
    write_page(results.path / PAGE, rows, f"Sweep {spec.path.name}")
    return SweepSummary(results.path, len(rows), len(todo), sum(r["error"] is not None for r in rows),
                        sum(r["bit_exact"] is False for r in rows))
