"""The results folder of a sweep: `sweep.json` (which spec wrote it), `results.jsonl` (one row per finished job,
appended and flushed by the driver alone as each job ends: an interrupted sweep keeps every row it had), and at
the end `results.csv` and `index.html`, written whole. A folder written by another spec is refused; a row already
there is a job not run again (unless its worker failed under it: a lost machine, not the job's error)."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

from firmware_gen.output_paths import check_output_dir, output_error, written_file
from firmware_gen.sweep.job import ROW_FIELDS, worker_failed
from firmware_gen.sweep.spec import OPTION_DEFAULTS, SpecError, SweepSpec

MARKER, ROWS, TABLE, PAGE = "sweep.json", "results.jsonl", "results.csv", "index.html"


def _read_rows(path: Path) -> dict[str, dict]:
    """The rows of results.jsonl by job; a last line cut short by an interruption is dropped (and cut off)."""
    rows: dict[str, dict] = {}
    if not path.exists():
        return rows
    data = path.read_bytes()
    complete = data[:data.rfind(b"\n") + 1]
    if len(complete) != len(data):
        with path.open("r+b") as file:
            file.truncate(len(complete))
    for line in complete.decode().splitlines():
        if line.strip():
            row = json.loads(line)
            if row["job"] not in rows or worker_failed(rows[row["job"]]):  # a job run again after its worker failed
                rows[row["job"]] = row
    return rows


class ResultsDir:
    def __init__(self, path: Path, spec: SweepSpec) -> None:
        self.path, self.spec = path, spec
        self.rows: dict[str, dict] = {}

    @classmethod
    def check(cls, path: str | Path, spec: SweepSpec) -> ResultsDir:
        """The folder, checked before anything runs (nothing is created yet), with the rows it already holds."""
        folder = check_output_dir(path, "-o")
        results = cls(folder, spec)
        marker = folder / MARKER
        if marker.exists():
            written = json.loads(marker.read_text())
            if written.get("fingerprint") != spec.fingerprint():
                raise SpecError(f"-o {path}: holds the results of a different spec ({written.get('spec')}); "
                                f"give another folder or remove it")
            results.rows = _read_rows(folder / ROWS)
        elif folder.is_dir() and any(folder.iterdir()):
            raise SpecError(f"-o {path}: not empty and not a sweep's results folder")
        return results

    def start(self) -> None:
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            if not (self.path / MARKER).exists():
                with written_file(self.path / MARKER, "-o") as temporary:
                    temporary.write_text(json.dumps({"spec": str(self.spec.path), "fingerprint":
                                                     self.spec.fingerprint(), "jobs": len(self.spec.jobs())}))
            self._file = (self.path / ROWS).open("a")
        except OSError as error:
            raise output_error("-o", self.path, error) from None

    def done(self, key: str) -> bool:
        """The job has its row (a job whose worker failed has not: it runs again)."""
        return key in self.rows and not worker_failed(self.rows[key])

    def add(self, row: dict) -> bool:
        """Append the row of a job not yet done (False, nothing written, for a job already there)."""
        if self.done(row["job"]):
            return False
        self.rows[row["job"]] = row
        self._file.write(json.dumps(row, sort_keys=True) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())
        return True

    def close(self) -> None:
        if hasattr(self, "_file"):
            self._file.close()

    def ordered(self) -> list[dict]:
        """The rows in the spec's order of jobs."""
        return [self.rows[job.key] for job in self.spec.jobs() if job.key in self.rows]

    def write_table(self) -> Path:
        fields = [name for name in ROW_FIELDS if name != "options"]
        columns = fields[:3] + list(OPTION_DEFAULTS) + fields[3:]
        with written_file(self.path / TABLE, "-o") as temporary, temporary.open("w", newline="") as file:
            writer = csv.DictWriter(file, columns)
            writer.writeheader()
            for row in self.ordered():
                options = {name: json.dumps(value) if isinstance(value, list) else value
                           for name, value in row["options"].items()}
                writer.writerow({**{name: row[name] for name in fields}, **options})
        return self.path / TABLE
