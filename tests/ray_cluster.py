"""A real Ray cluster on this machine for the tests (ray.cluster_utils.Cluster: a head and more nodes, each its own
raylet), on 127.0.0.1 only, every process it started stopped by process id at the end.

On Linux Ray replaces 127.0.0.1 by the machine's other address unless RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 is in
the environment (../shared/PLATFORM.md); usage statistics off, no dashboard. Each node builds in a cache folder of
its own (XDG_CACHE_HOME of its raylet, inherited by its workers), its object caches linked to the test process's
(as conftest links the workers'): a node's firmware builds are its own, the kernels' objects compiled once."""

from __future__ import annotations

import contextlib
import ipaddress
import os
import signal
import time
from pathlib import Path

RAY_ENVIRONMENT = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
# A lost node is noticed in seconds, not the default half minute.
FAST_FAILURE_DETECTION = {"health_check_period_ms": 500, "health_check_failure_threshold": 4}


def node_cache(root: Path, name: str) -> dict[str, str]:
    """The env_vars of a node building in root/name, its object caches the test process's."""
    mine = Path(os.environ["XDG_CACHE_HOME"]) / "firmware-gen"
    cache = root / name / "firmware-gen"
    cache.mkdir(parents=True)
    for kind in ("host-objects", "cross-objects"):
        (mine / kind).mkdir(parents=True, exist_ok=True)
        (cache / kind).symlink_to((mine / kind).resolve(), target_is_directory=True)
    return {"XDG_CACHE_HOME": str(root / name)}


def _children() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry))
    return children


def process_tree(roots: list[int]) -> set[int]:
    """The processes roots and every process they started that is still their descendant."""
    children, found, todo = _children(), set(), list(roots)
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo += children.get(pid, [])
    return found


def node_pids(node: object) -> list[int]:
    return [info.process.pid for infos in node.all_processes.values() for info in infos]


def stop_by_pid(pids: set[int], timeout: float = 30) -> set[int]:
    """SIGKILL to those of pids still running once `timeout` has passed since asked; the ones left (none)."""
    deadline = time.monotonic() + timeout
    alive = {pid for pid in pids if Path(f"/proc/{pid}").exists()}
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = {pid for pid in alive if Path(f"/proc/{pid}").exists() and not _zombie(pid)}
    for pid in alive:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    time.sleep(0.5)
    return {pid for pid in alive if Path(f"/proc/{pid}").exists() and not _zombie(pid)}


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


def _listening(table: str) -> dict[int, str]:
    """inode -> the local address of each listening TCP socket of /proc/net/tcp or tcp6."""
    sockets = {}
    for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == "0A":  # LISTEN
            address = fields[1].split(":")[0]
            raw = bytes.fromhex(address)
            if table == "tcp":
                text = str(ipaddress.IPv4Address(raw[::-1]))
            else:
                words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
                ip = ipaddress.IPv6Address(words)
                text = str(ip.ipv4_mapped or ip)
            sockets[int(fields[9])] = text
    return sockets


def listening_addresses(pids: set[int]) -> set[str]:
    """The local addresses the processes pids listen on (TCP)."""
    sockets = {**_listening("tcp"), **_listening("tcp6")}
    found = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                    if target.startswith("socket:[") and int(target[8:-1]) in sockets:
                        found.add(sockets[int(target[8:-1])])
    return found
