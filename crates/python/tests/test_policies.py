"""Policies written in Python: identical to the built-in ones job for job,
and errors become clear Python exceptions."""

import pytest

import schedsim

from policies import Easy, Fcfs


def schedule_rows(run):
    # Every column but the policy-independent header; job order is the
    # workload's, so equal text means equal schedules.
    return run.jobs_csv.splitlines()


@pytest.mark.parametrize("python_policy, builtin", [(Fcfs(), "fcfs"), (Easy(), "easy")])
def test_python_policies_equal_builtin_on_generated_workload(workload, python_policy, builtin):
    ours = schedsim.simulate(workload, policy=python_policy)
    theirs = schedsim.simulate(workload, policy=builtin)
    assert schedule_rows(ours) == schedule_rows(theirs)
    assert ours.summary["metrics"] == theirs.summary["metrics"]
    assert ours.summary["policy"] == python_policy.name


@pytest.mark.parametrize("python_policy, builtin", [(Fcfs(), "fcfs"), (Easy(), "easy")])
def test_python_policies_equal_builtin_on_kth(kth, python_policy, builtin):
    ours = schedsim.simulate(kth, policy=python_policy, lenient=True)
    theirs = schedsim.simulate(kth, policy=builtin, lenient=True)
    assert schedule_rows(ours) == schedule_rows(theirs)
    # 28,475 jobs simulated (one without a size is dropped).
    assert len(schedule_rows(ours)) == 1 + 28475


def test_an_exception_in_a_policy_propagates(workload):
    class Broken(schedsim.Policy):
        def schedule(self, view):
            raise KeyError("no such thing")

    with pytest.raises(KeyError, match="no such thing"):
        schedsim.simulate(workload, policy=Broken())


def test_a_refused_decision_is_a_clear_error(workload):
    class Greedy(schedsim.Policy):
        # Starts every waiting job, fitting or not.
        def schedule(self, view):
            return [("start", job) for job in view.queue]

    with pytest.raises(RuntimeError, match="processors"):
        schedsim.simulate(workload, policy=Greedy())


def test_bad_decisions_name_the_format(workload):
    class Words(schedsim.Policy):
        def schedule(self, view):
            return ["start"]

    with pytest.raises(TypeError, match="a decision is a tuple"):
        schedsim.simulate(workload, policy=Words())

    class Unknown(schedsim.Policy):
        def schedule(self, view):
            return [("launch", view.queue[0])]

    with pytest.raises(ValueError, match="unknown decision"):
        schedsim.simulate(workload, policy=Unknown())

    class OutOfRange(schedsim.Policy):
        def schedule(self, view):
            return [("start", 10**9)]

    with pytest.raises(IndexError, match="not a job of this workload"):
        schedsim.simulate(workload, policy=OutOfRange())


def test_not_a_policy():
    with pytest.raises(TypeError, match="schedule"):
        schedsim.simulate(policy=42)


@pytest.mark.parametrize(
    "returned, error, message",
    [
        # Before: OverflowError "out of range integral type conversion attempted".
        (lambda view: [("start", -1)], IndexError, r"job -1 is not a job of this workload \(\d+ jobs: 0 to \d+\)"),
        (lambda view: [("start", 2**70)], IndexError, r"job 1180591620717411303424 is not a job"),
        # Before: True was taken as job 1.
        (lambda view: [("start", True)], TypeError, r"a job is an int \(an index as in view.queue\), not bool: True"),
        (lambda view: [("start", "3")], TypeError, r"not str: '3'"),
        # Before: IndexError "tuple index out of range".
        (lambda view: [()], ValueError, r"unknown decision \(\)"),
        (lambda view: [(b"start", 0)], ValueError, r"unknown decision \(b'start', 0\)"),
        # Before: "'int' object is not iterable", and a string's characters
        # were read as decisions ("not s").
        (lambda view: 42, TypeError, r"schedule returns None or a list of decisions .*, not int: 42"),
        (lambda view: "start", TypeError, r"not str: 'start'"),
        # Before: OverflowError "Python int too large to convert to C long".
        (lambda view: [("wake", 2**64)], RuntimeError, r"past the 2\^62 s a simulation can reach"),
        (lambda view: [("wake", -(2**70))], RuntimeError, r"asked to be woken at -9223372036854775808, before the current time"),
        (lambda view: [("wake", 1.5)], TypeError, r"a wake time is an int \(seconds\), not float: 1.5"),
    ],
)
def test_misbehaving_decisions_are_named(workload, returned, error, message):
    class Misbehaving(schedsim.Policy):
        def schedule(self, view):
            return returned(view)

    with pytest.raises(error, match=message):
        schedsim.simulate(workload, policy=Misbehaving())


def test_view_methods_name_a_bad_job(workload):
    class Asks(schedsim.Policy):
        def __init__(self, job):
            self.job = job

        def schedule(self, view):
            view.size(self.job)
            return []

    with pytest.raises(IndexError, match="job -1 is not a job of this workload"):
        schedsim.simulate(workload, policy=Asks(-1))
    with pytest.raises(TypeError, match="not float: 0.5"):
        schedsim.simulate(workload, policy=Asks(0.5))


def test_rejecting_a_job_twice_says_rejected(workload):
    class Twice(schedsim.Policy):
        def schedule(self, view):
            return [("reject", job, "no") for job in view.queue[:1]] * 2

    with pytest.raises(RuntimeError, match=r"rejected job \d+ .* not waiting \(it was rejected\)"):
        schedsim.simulate(workload, policy=Twice())
