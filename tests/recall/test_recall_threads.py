"""The question is embedded on a worker thread while the keyword stage runs: the answer is the same as
embedding it first, and a process forked after recalling (a worker pool, a daemon) still recalls."""

from __future__ import annotations

import os
import sys

import pytest


@pytest.fixture
def notes(brain):
    brain.remember("The staging deploy runs every Thursday at noon.", key="staging-deploy")
    brain.remember("Production deploys need two approvals from the platform team.", key="prod-approvals")
    brain.remember("My dentist appointment is on the 14th at 9:30.", key="dentist")
    return brain


def test_the_threaded_embedding_gives_the_same_hits_as_a_given_vector(notes):
    question = "how many approvals do production deploys need"
    threaded = notes.recall(question, k=3)
    vector = notes.index.embedder.embed([question])[0]
    from brain_core.recall.hybrid import recall

    given = recall(notes.index, notes.usage, question, k=3, query_vector=vector)
    assert [h.record.key for h in threaded] == [h.record.key for h in given]
    assert [round(h.score, 6) for h in threaded] == [round(h.score, 6) for h in given]
    assert threaded[0].record.key == "prod-approvals"


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin", reason="fork is POSIX's (and unsafe on macOS)")
def test_a_process_forked_after_a_recall_recalls_on_threads_of_its_own(notes):
    assert notes.recall("when does staging deploy", k=1)[0].record.key == "staging-deploy"
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its parent's worker threads did not come with it
        try:
            os.close(read)
            signal_alarm = __import__("signal")
            signal_alarm.alarm(60)  # a hang ends the child instead of the test run
            key = notes.recall("when is my dentist appointment", k=1)[0].record.key
            os.write(write, key.encode())
        finally:
            os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    got = os.read(read, 100)
    os.close(read)
    assert os.WIFEXITED(status), "the child hung or died instead of recalling"
    assert got == b"dentist"
