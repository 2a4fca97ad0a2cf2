"""Ingest killed at random points, then run again: the store must end identical to an uninterrupted run.

One clean run of `papertalk ingest-arxiv` on the first `--records` demo records (short chunks, so the run
writes many batches) gives the reference store and its wall time T. Then, in fresh data directories, the
same command is started and SIGKILLed after a delay drawn uniformly from [0, T] (start-up, migrations,
parsing, embedding, Chroma and catalog writes all get hit), again and again until a run ends on its own;
each such sequence is compared exactly with the reference (`bench/store_snapshot.py`: catalog rows,
Chroma ids + documents + metadata + embeddings, keyword index contents and scores). Sequences go on until
`--kills` kills have landed.

    nice -n 10 python -m bench.bench_kill_resume              # 20 kills, ~10-20 min on 2 shared cores
    python -m bench.bench_kill_resume --kills 3 --no-record   # a quick look
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.store_snapshot import differences, sizes, snapshot

MODULE = "bench.bench_kill_resume"
PAPERTALK = Path(sys.executable).parent / "papertalk"
CHUNK_ENV = {
    "PAPERTALK_CHUNKING__CHUNK_TOKENS": "48",
    "PAPERTALK_CHUNKING__OVERLAP_TOKENS": "0",
    "PAPERTALK_CHUNKING__TITLE_TOKENS": "0",
}


@dataclass
class Sequence:
    """Runs in one data directory: the kill delays that landed, then the run that finished."""

    kills: list[float] = field(default_factory=list)
    finished_s: float = 0.0
    differences: list[str] = field(default_factory=list)


def write_records(path: Path, n: int) -> Path:
    from papertalk.demo import DEMO_METADATA

    with gzip.open(DEMO_METADATA, "rt", encoding="utf-8") as fh:
        path.write_text("".join(itertools.islice(fh, n)))
    return path


def start(records: Path, data_dir: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, **CHUNK_ENV, "PAPERTALK_DATA_DIR": str(data_dir)}
    return subprocess.Popen(
        [str(PAPERTALK), "ingest-arxiv", str(records)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )


def run_to_end(records: Path, data_dir: Path, timeout: float = 1800) -> float:
    """Seconds the ingest took; it must succeed."""
    started = time.monotonic()
    proc = start(records, data_dir)
    _, err = proc.communicate(timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"ingest failed (exit {proc.returncode}): {err.decode()[-2000:]}")
    return time.monotonic() - started


def run_and_kill(records: Path, data_dir: Path, delay: float) -> bool:
    """Start the ingest and SIGKILL it after `delay` s; False when it finished first."""
    proc = start(records, data_dir)
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        return True
    finally:
        if proc.stderr is not None:
            proc.stderr.close()
    if proc.returncode != 0:
        raise RuntimeError(f"ingest failed on its own (exit {proc.returncode}) before the kill")
    return False


def kill_sequence(records: Path, data_dir: Path, clean_s: float, rng: random.Random, most: int) -> Sequence:
    """Kill runs at random delays until one finishes (or `most` kills landed, then run to the end)."""
    seq = Sequence()
    while len(seq.kills) < most:
        delay = rng.uniform(0, clean_s)
        if not run_and_kill(records, data_dir, delay):
            break
        seq.kills.append(delay)
    seq.finished_s = run_to_end(records, data_dir)  # the rerun (a no-op when the last one finished)
    return seq


def kill_and_compare(records: Path, work: Path, kills: int, seed: int, most_per_sequence: int = 5) -> dict:
    """The reference run, then kill sequences until `kills` kills landed; each compared to the reference."""
    rng = random.Random(seed)
    clean_dir = work / "clean"
    clean_s = run_to_end(records, clean_dir)
    reference = snapshot(clean_dir)
    sequences: list[Sequence] = []
    while sum(len(s.kills) for s in sequences) < kills:
        data_dir = work / f"killed-{len(sequences)}"
        left = kills - sum(len(s.kills) for s in sequences)
        seq = kill_sequence(records, data_dir, clean_s, rng, min(left, most_per_sequence))
        seq.differences = differences(reference, snapshot(data_dir))
        sequences.append(seq)
        shutil.rmtree(data_dir, ignore_errors=True)
    return {"clean_s": clean_s, "sizes": sizes(reference), "sequences": sequences, "reference": reference}


def report(result: dict, records: int, seed: int) -> str:
    from bench.common import markdown_table

    seqs: list[Sequence] = result["sequences"]
    rows = [
        [i + 1, len(s.kills), ", ".join(f"{d:.1f}" for d in s.kills) or "-", s.finished_s, len(s.differences)]
        for i, s in enumerate(seqs)
    ]
    table = markdown_table(["sequence", "kills", "kill delays (s)", "final run (s)", "differences"], rows)
    n = result["sizes"]
    lost = sum(len(s.differences) for s in seqs)
    return (
        f"`papertalk ingest-arxiv` on the first {records} demo records (48-piece chunks: {n['papers']} papers, "
        f"{n['chunks']} chunks, {n['vectors']} vectors, {n['keyword_chunks']} keyword-indexed chunks), SIGKILLed "
        f"after a delay drawn uniformly from [0, {result['clean_s']:.1f} s] (the clean run's wall time; seed "
        f"{seed}), run again in the same data directory until a run finished, then compared exactly with the "
        f"clean run.\n\n{table}\n\nKills: {sum(len(s.kills) for s in seqs)}; stores compared: {len(seqs)}; "
        f"differences (records lost, duplicated or changed): {lost}."
    )


def main() -> None:
    from bench.common import add_common_args, publish_reliability

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=20, help="kills to land in all")
    parser.add_argument("--records", type=int, default=60, help="demo records to ingest")
    parser.add_argument("--seed", type=int, default=11)
    add_common_args(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="papertalk-kill-") as tmp:
        work = Path(tmp)
        records = write_records(work / "records.jsonl", args.records)
        result = kill_and_compare(records, work, args.kills, args.seed)
    for i, seq in enumerate(result["sequences"], 1):
        for line in seq.differences:
            print(f"sequence {i}: {line}")
    publish_reliability(
        args,
        "kill_resume",
        "Ingest killed at random points, then run again",
        MODULE,
        report(result, args.records, args.seed),
    )
    print(json.dumps({"kills": sum(len(s.kills) for s in result["sequences"])}))


if __name__ == "__main__":
    main()
