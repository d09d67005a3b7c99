"""A flipped bit anywhere in a shard (hands or actions) or a journal line never becomes a changed number: every
reader either reads the original rows or refuses in one line naming the damaged file.

One small live run (two chunks folded into the manifest, two still in the journal) is shared by every example; each
flips one bit, runs the readers, and puts the byte back. 1,000 flips in all, derandomised so CI runs the same ones.
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from experiments.analysis.knorri import load_run
from experiments.analysis.knorri.cutoff_run import checked_action_shards, open_cutoff_run
from experiments.analysis.load import RunFolderError
from experiments.errors import RunDamaged, UsageError
from experiments.league.results import read_finishing_orders
from experiments.replay.build import run_replay
from experiments.runner import storage
from hostile.runs import as_live, flipped, make_run

FLIPS = settings(deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
ONE_PER_CHUNK = (5, 15, 25, 35)  # a hand of each chunk, to replay


class Intact(tuple):
    """The shared run's folder, with what the readers read from it intact (shown short when an example fails)."""

    def __repr__(self) -> str:
        return f"the run in {self[0]}"


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """The shared run, with what each reader reads from it intact."""
    out = as_live(make_run(tmp_path_factory.mktemp("flips") / "run"))
    return Intact((out, load_run(out).hands, {hand: run_replay(out, hand) for hand in ONE_PER_CHUNK}))


def refusal(read):
    """What a reader says: its result, or the one-line refusal it raised."""
    try:
        return read(), None
    except (RunDamaged, RunFolderError, UsageError) as error:
        assert "\n" not in str(error)
        return None, str(error)


def finishing_orders(out):
    return [codes.tolist() for _, codes, _, _ in read_finishing_orders(out, "knorri")]


def shard_and_flip(out, table):
    chunk = st.integers(0, 3)
    return chunk.flatmap(lambda c: st.tuples(st.just(out / table / storage.shard_name(c)),
                                             st.integers(0, (out / table / storage.shard_name(c)).stat().st_size - 1),
                                             st.integers(0, 7)))


@settings(FLIPS, max_examples=500)
@given(data=st.data())
def test_a_flipped_bit_in_a_hands_shard_is_refused_by_every_reader_naming_the_shard(live, data):
    out, _, _ = live
    path, offset, bit = data.draw(shard_and_flip(out, "hands"))
    with flipped(path, offset, bit):
        for read in (lambda: load_run(out), lambda: open_cutoff_run(out), lambda: finishing_orders(out)):
            result, said = refusal(read)
            assert result is None and f"hands/{path.name} " in said and "is damaged" in said, said


@settings(FLIPS, max_examples=500)
@given(data=st.data())
def test_a_flipped_bit_in_an_actions_shard_is_refused_by_every_reader_of_it_naming_the_shard(live, data):
    out, _, _ = live
    path, offset, bit = data.draw(shard_and_flip(out, "actions"))
    hand = ONE_PER_CHUNK[int(path.stem.removeprefix("part-"))]
    with flipped(path, offset, bit):
        for read in (lambda: run_replay(out, hand), lambda: checked_action_shards(open_cutoff_run(out))):
            result, said = refusal(read)
            assert result is None and f"actions/{path.name} " in said and "is damaged" in said, said


@settings(FLIPS, max_examples=300)
@given(offset=st.integers(0, 10_000), bit=st.integers(0, 7))
def test_a_flipped_bit_in_the_journal_reads_the_original_rows_or_is_refused_naming_the_journal(live, offset, bit):
    out, hands, replays = live
    journal = out / storage.JOURNAL
    with flipped(journal, offset % journal.stat().st_size, bit):
        loaded, said = refusal(lambda: load_run(out))
        if loaded is None:
            assert "journal.jsonl line " in said, said
        else:  # a cut last line leaves its chunk unread, as for a run killed while writing it: fewer rows, flagged
            read = sorted(set(loaded.hands["hand_index"] // 10))
            assert loaded.chunks_read == len(read) and loaded.complete == (read == [0, 1, 2, 3])
            pd.testing.assert_frame_equal(loaded.hands, hands[(hands["hand_index"] // 10).isin(read)]
                                          .reset_index(drop=True))
        replayed, said = refusal(lambda: run_replay(out, 25))
        assert replayed == replays[25] if replayed is not None else "journal.jsonl line " in said, said


def test_shards_carry_page_checksums_that_catch_what_a_plain_read_would_miss(live, tmp_path):
    out, _, _ = live
    shard = out / "hands" / storage.shard_name(0)
    original = pq.read_table(shard)
    column = pq.ParquetFile(shard).metadata.row_group(0).column(original.column_names.index("loser"))
    silent = 0
    for offset in range(column.data_page_offset + 20, column.data_page_offset + column.total_compressed_size):
        copy = tmp_path / "copy.parquet"
        data = bytearray(shard.read_bytes())
        data[offset] ^= 1
        copy.write_bytes(bytes(data))
        try:
            changed = not pq.read_table(copy).equals(original)
        except (OSError, pa.ArrowException):
            continue
        silent += changed
        if changed:
            with pytest.raises(OSError, match="CRC"):
                pq.read_table(copy, page_checksum_verification=True)
    assert silent > 0  # flips a read without the page checksums would have returned as changed rows
