"""A throwaway one-node Slurm cluster for tests, from Debian's ``slurm-wlm`` and ``munge``.

Everything lives in one fresh directory: a new munge key and socket, ``slurm.conf``,
controller state, slurmd spool, logs and pid files; the TCP ports are free ones and the
partition name is unique, so nothing under ``/etc`` is read or written and a system
Slurm or munge (if any) is left alone. The daemons run in the foreground as children of
the test process, as root (``SlurmUser=root``), and are stopped by their process ids.

The recipe (docs/slurm.md shows it by hand, as shell commands):
``ProctrackType=proctrack/linuxproc`` and ``TaskPlugin=task/none`` need no cgroups,
``JobAcctGatherType=jobacct_gather/none`` and no accounting storage need no database,
one node with ``CPUs=$(nproc)`` and ``select/cons_tres`` + ``CR_CPU`` so several
one-CPU jobs share it. ``MinJobAge`` keeps finished jobs visible to ``scontrol show
job`` for the checks.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from system_install import InstallFailed, apt_commands, install_missing, last_line

#: Debian packages that provide the daemons and the client commands.
PACKAGES = ("slurm-wlm", "munge")
#: Commands the cluster needs; any missing one means "install the packages".
COMMANDS = ("munged", "slurmctld", "slurmd", "srun", "sinfo", "scontrol", "scancel", "squeue")
#: Bounds (seconds): apt-get update / install, the cluster coming up, one client call.
APT_UPDATE_TIMEOUT = 300
APT_INSTALL_TIMEOUT = 600
START_TIMEOUT = 60
CLIENT_TIMEOUT = 30
STOP_TIMEOUT = 10


class ClusterError(RuntimeError):
    """The cluster cannot be provided; the message is one line saying why."""


# --------------------------------------------------------------------------- packages
def _which(name: str) -> str | None:
    """Absolute path of a command; sbin is searched too (daemons live there and a
    non-login root shell may not have it on PATH)."""
    path = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
    return shutil.which(name, path=path)


def missing_commands() -> list[str]:
    """Required commands that are not installed."""
    return [c for c in COMMANDS if _which(c) is None]


def ensure_packages() -> float:
    """Install ``slurm-wlm`` and ``munge`` with apt-get when a command is missing.

    Returns the seconds spent installing (0.0 when everything was there). Raises
    :class:`ClusterError` when installing is impossible (not root, no apt-get) or fails.
    """
    missing = missing_commands()
    if not missing:
        return 0.0
    what = f"Slurm test: {', '.join(missing)} not installed"
    if shutil.which("apt-get") is None:
        raise ClusterError(
            f"{what} and no apt-get to install {' '.join(PACKAGES)}; "
            f"install them (Debian/Ubuntu packages) and rerun"
        )
    if os.geteuid() != 0:
        raise ClusterError(
            f"{what}; run as root (the test installs {' '.join(PACKAGES)} "
            f"with apt-get and runs the daemons as root)"
        )
    start = time.monotonic()
    try:  # under the suite's install lock: another worker may be installing them now
        install_missing(
            lambda: bool(missing_commands()),
            apt_commands(PACKAGES, APT_UPDATE_TIMEOUT, APT_INSTALL_TIMEOUT),
        )
    except InstallFailed as exc:
        raise ClusterError(f"{what}: {exc}") from None
    still = missing_commands()
    if still:
        raise ClusterError(f"{what}: still missing after apt-get install: {', '.join(still)}")
    return time.monotonic() - start


# --------------------------------------------------------------------------- config
def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _usable_cpus() -> int:
    """What ``nproc`` prints; never more than slurmd finds (more would drain the node)."""
    return len(os.sched_getaffinity(0)) or 1


def slurm_conf(
    root: Path, partition: str, node: str, cpus: int, ctld_port: int, slurmd_port: int
) -> str:
    """``slurm.conf`` text for one node on 127.0.0.1 with all state under *root*."""
    host = socket.gethostname().split(".")[0]  # slurmctld must recognise itself
    settings = [
        ("ClusterName", partition),
        ("SlurmctldHost", f"{host}(127.0.0.1)"),
        ("SlurmctldPort", ctld_port),
        ("SlurmdPort", slurmd_port),
        ("SlurmUser", "root"),
        ("SlurmdUser", "root"),
        ("AuthType", "auth/munge"),
        ("CredType", "cred/munge"),
        ("AuthInfo", f"socket={root / 'run' / 'munge.socket'}"),  # our munged, not /run/munge
        ("StateSaveLocation", root / "state"),
        ("SlurmdSpoolDir", root / "spool"),
        ("SlurmctldPidFile", root / "run" / "slurmctld.pid"),
        ("SlurmdPidFile", root / "run" / "slurmd.pid"),
        ("SlurmctldLogFile", root / "log" / "slurmctld.log"),
        ("SlurmdLogFile", root / "log" / "slurmd.log"),
        ("ProctrackType", "proctrack/linuxproc"),  # no cgroups needed
        ("TaskPlugin", "task/none"),
        ("JobAcctGatherType", "jobacct_gather/none"),
        ("AccountingStorageType", "accounting_storage/none"),
        ("SchedulerType", "sched/builtin"),
        ("SelectType", "select/cons_tres"),
        ("SelectTypeParameters", "CR_CPU"),  # one-CPU jobs share the node
        ("MpiDefault", "none"),
        ("ReturnToService", 2),
        ("MinJobAge", 3600),  # finished jobs stay visible to `scontrol show job`
        ("SlurmctldDebug", "info"),
        ("SlurmdDebug", "info"),
    ]
    lines = [f"{key}={value}" for key, value in settings]
    lines.append(
        f"NodeName={node} NodeHostname={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN"
    )
    lines.append(f"PartitionName={partition} Nodes={node} Default=YES MaxTime=INFINITE State=UP")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- cluster
_JOB_FIELDS = ("JobId", "JobState", "ExitCode", "Partition", "WorkDir")


@dataclass
class SlurmCluster:
    """A running one-node cluster; :meth:`env` is what clients (srun, opencompass) need."""

    root: Path
    partition: str
    node: str
    procs: dict[str, subprocess.Popen] = field(default_factory=dict)

    @property
    def conf(self) -> Path:
        return self.root / "slurm.conf"

    def env(self) -> dict[str, str]:
        """Variables to add to a client's environment (srun passes them on to the job)."""
        return {"SLURM_CONF": str(self.conf)}

    def client(
        self, args: list[str], timeout: float = CLIENT_TIMEOUT
    ) -> subprocess.CompletedProcess:
        """Run a Slurm client command against this cluster."""
        args = [_which(args[0]) or args[0], *args[1:]]
        return subprocess.run(
            args,
            env={**os.environ, **self.env()},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def jobs(self) -> list[dict[str, str]]:
        """Every job the controller remembers (finished ones included, see MinJobAge):
        JobId, JobName, JobState, ExitCode, Partition, WorkDir."""
        proc = self.client(["scontrol", "show", "job", "-o"])
        if proc.returncode != 0:
            raise ClusterError(f"scontrol show job failed: {last_line(proc.stderr)}")
        jobs = []
        for line in proc.stdout.splitlines():
            if not line.startswith("JobId="):
                continue  # "No jobs in the system"
            job = {}
            name = re.search(r"\bJobName=(.*?) UserId=", line)  # a name may hold spaces
            job["JobName"] = name.group(1) if name else ""
            for key in _JOB_FIELDS:
                found = re.search(rf"(?:^| ){key}=(\S*)", line)
                job[key] = found.group(1) if found else ""
            jobs.append(job)
        return jobs

    def logs(self, tail: int = 4000) -> str:
        """The end of every daemon log, for failure messages."""
        parts = []
        for log in sorted((self.root / "log").glob("*")):
            text = log.read_text(errors="replace")
            parts.append(f"--- {log.name}\n{text[-tail:]}")
        return "\n".join(parts)

    def stop(self) -> None:
        """Cancel our jobs, stop the daemons (by pid, newest first), delete the directory."""
        if "slurmctld" in self.procs and self.procs["slurmctld"].poll() is None:
            try:
                self.client(["scancel", "--partition", self.partition], timeout=STOP_TIMEOUT)
                deadline = time.monotonic() + STOP_TIMEOUT
                while time.monotonic() < deadline:  # let slurmd reap the job steps
                    q = self.client(["squeue", "-h", "-p", self.partition], timeout=STOP_TIMEOUT)
                    if q.returncode != 0 or not q.stdout.strip():
                        break
                    time.sleep(0.5)
            except subprocess.TimeoutExpired:
                pass
        for name in reversed(list(self.procs)):
            _terminate(self.procs[name])
        self.procs.clear()
        shutil.rmtree(self.root, ignore_errors=True)


def _terminate(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=STOP_TIMEOUT)


def _daemon(cluster: SlurmCluster, name: str, cmd: list[str]) -> None:
    with open(cluster.root / "log" / f"{name}.stdout", "wb") as out:
        cluster.procs[name] = subprocess.Popen(
            [_which(cmd[0]) or cmd[0], *cmd[1:]],
            env={**os.environ, **cluster.env()},
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # no terminal signals


def _wait_until_ready(cluster: SlurmCluster, deadline: float) -> None:
    """Until ``srun -N1 true`` works in the partition; fails early if a daemon dies."""
    last = "no answer yet"
    while time.monotonic() < deadline:
        for name, proc in cluster.procs.items():
            if proc.poll() is not None:
                raise ClusterError(f"{name} exited with code {proc.returncode} while starting")
        try:
            state = cluster.client(["sinfo", "-h", "-p", cluster.partition, "-o", "%T"], timeout=5)
            last = last_line(state.stdout + state.stderr)
            if state.returncode == 0 and state.stdout.strip().startswith("idle"):
                probe = cluster.client(
                    ["srun", "-p", cluster.partition, "-N1", "-t", "1", "true"],
                    timeout=max(1.0, deadline - time.monotonic()),
                )
                if probe.returncode == 0:
                    return
                last = f"srun -N1 true: {last_line(probe.stderr)}"
        except subprocess.TimeoutExpired:
            last = "a client command timed out"
        time.sleep(0.5)
    raise ClusterError(f"cluster not ready in time (last: {last})")


def start_cluster(partition: str | None = None, timeout: float = START_TIMEOUT) -> SlurmCluster:
    """Start munged, slurmctld and slurmd in a fresh directory and wait (bounded) until
    a job runs. On failure everything started is stopped again and :class:`ClusterError`
    carries one line (plus the daemon logs' tails below it)."""
    if os.geteuid() != 0:
        raise ClusterError("Slurm test: must run as root (the daemons run with SlurmUser=root)")
    missing = missing_commands()
    if missing:
        raise ClusterError(f"Slurm test: {', '.join(missing)} not installed")
    # munged wants every directory on its socket path searchable by all: no 0700 parents
    root = Path(tempfile.mkdtemp(prefix="gpassk-slurm-", dir="/tmp"))
    root.chmod(0o755)
    partition = partition or f"gpassk{secrets.token_hex(3)}"
    cluster = SlurmCluster(root=root, partition=partition, node=f"{partition}n1")
    try:
        for sub, mode in (
            ("run", 0o755),
            ("munge", 0o700),
            ("state", 0o700),
            ("spool", 0o700),
            ("log", 0o755),
        ):
            (root / sub).mkdir(mode=mode)
        key = root / "munge" / "munge.key"
        key.write_bytes(secrets.token_bytes(128))  # what `mungekey` makes: 1024 random bits
        key.chmod(0o400)
        cluster.conf.write_text(
            slurm_conf(root, partition, cluster.node, _usable_cpus(), _free_port(), _free_port())
        )
        deadline = time.monotonic() + timeout
        _daemon(
            cluster,
            "munged",
            [
                "munged",
                "--foreground",
                f"--key-file={key}",
                f"--socket={root / 'run' / 'munge.socket'}",
                f"--pid-file={root / 'run' / 'munged.pid'}",
                f"--log-file={root / 'log' / 'munged.log'}",
                f"--seed-file={root / 'munge' / 'munged.seed'}",
            ],
        )
        while not (root / "run" / "munge.socket").exists():
            if cluster.procs["munged"].poll() is not None or time.monotonic() > deadline:
                raise ClusterError("munged did not create its socket in time")
            time.sleep(0.1)
        _daemon(cluster, "slurmctld", ["slurmctld", "-D", "-i", "-f", str(cluster.conf)])
        _daemon(cluster, "slurmd", ["slurmd", "-D", "-N", cluster.node, "-f", str(cluster.conf)])
        _wait_until_ready(cluster, deadline)
    except BaseException as exc:
        logs = cluster.logs()
        cluster.stop()
        if isinstance(exc, ClusterError):
            raise ClusterError(f"Slurm test: {exc} (bound {timeout:g} s)\n{logs}") from None
        raise
    return cluster
