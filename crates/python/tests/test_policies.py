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
