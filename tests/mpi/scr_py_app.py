"""scr_py_app.py — a pure-Python MPI application that checkpoints through the
scr module (python/scr.py), for tests; it speaks like tests/mpi/scr_test_app.

Each step every rank writes ckpt.<step>/rank<r>.txt holding its rank and the
step, as checkpoint "ckpt.<step>", until --steps. The restart loops on
scr.have_restart() as SCR's own Python example does, checks what it reads,
and --fail-restart-of NAME makes the last rank report its read of
checkpoint NAME invalid.

Prints, per rank: "rank R: fresh start" or "rank R: restarted from step S"
("rank R: restart from NAME failed" before each failed attempt), and
"rank R: finished step N"; a check that fails prints "rank R: FAIL: ..."
and the exit status is then 1. Other options:
  --config            check scr.config() before scr.init(): get, set, unset
                      (lines "rank R: <check> ok"; these do not set the status)
  --expect-init-failure   scr.init() must raise RuntimeError; prints
                      "rank R: init raised RuntimeError" and stops
  --drop NAME, --delete NAME   scr.drop / scr.delete right after init
                      (--drop may be given more than once); each returns
                      None, which prints "rank R: drop NAME returned None"
  --route-missing     in the restart phase, route_file of a file the
                      checkpoint lacks must raise RuntimeError
"""
import argparse
import os
import sys

from mpi4py import MPI

import scr

rank = MPI.COMM_WORLD.rank
ranks = MPI.COMM_WORLD.size
failures = []


def say(text):
    # one write per line: mpirun then never splices another rank's line into it
    os.write(1, ("rank %d: %s\n" % (rank, text)).encode())


def fail(text):
    failures.append(text)
    say("FAIL: " + text)


def expect(what, got, want):
    """Says "WHAT ok", or what differs; the test reads these lines, and the
    exit status does not depend on them, so that one run checks them all."""
    if got == want:
        say("%s ok" % what)
    else:
        say("FAIL: %s: got %r, expected %r" % (what, got, want))


def check_config():
    # SCR_CURRENT has no built-in value, and SCR_FLUSH's built-in value is
    # not a setting: SCR_Config reports neither
    expect("config of an unset parameter", scr.config("SCR_CURRENT"), None)
    expect("config of a parameter left at its default", scr.config("SCR_FLUSH"), None)
    expect("config set", scr.config("SCR_FLUSH=1"), None)
    expect("config get", scr.config("SCR_FLUSH"), "1")
    scr.config("SCR_CHECKPOINT_INTERVAL=2")
    expect("config unset", (scr.config("SCR_CHECKPOINT_INTERVAL="), scr.config("SCR_CHECKPOINT_INTERVAL")),
           (None, None))


def restart(opts):
    """The step to go on from: that of the newest checkpoint every rank reads."""
    while True:
        name = scr.have_restart()
        if name is None:
            say("fresh start")
            return 0
        started = scr.start_restart()
        if started != name:
            fail("start_restart gave %r, have_restart %r" % (started, name))
        step = int(name.split(".")[1])
        valid = True
        try:
            with open(scr.route_file("ckpt.%d/rank%d.txt" % (step, rank))) as f:
                if f.read() != "rank %d step %d\n" % (rank, step):
                    fail("ckpt.%d/rank%d.txt holds something else" % (step, rank))
                    valid = False
        except (OSError, RuntimeError) as e:
            fail("reading checkpoint %s: %s" % (name, e))
            valid = False
        if opts.route_missing:
            try:
                scr.route_file("no-such-file.dat")
                fail("route_file of a file the checkpoint lacks returned")
            except RuntimeError:
                say("route_file of a missing file raised RuntimeError")
        if opts.fail_restart_of == name and rank == ranks - 1:
            valid = False
        if scr.complete_restart(valid):
            say("restarted from step %d" % step)
            return step
        say("restart from %s failed" % name)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--config", action="store_true")
    p.add_argument("--expect-init-failure", action="store_true")
    p.add_argument("--fail-restart-of")
    p.add_argument("--drop", action="append", default=[])
    p.add_argument("--delete")
    p.add_argument("--route-missing", action="store_true")
    opts = p.parse_args()

    if opts.config:
        check_config()
    try:
        scr.init()
    except RuntimeError as e:
        if opts.expect_init_failure:
            say("init raised RuntimeError")
            return 0
        fail("scr.init raised %s" % e)
        return 1
    if opts.expect_init_failure:
        fail("scr.init did not raise")
    for name in opts.drop:
        try:
            got = scr.drop(name)
        except RuntimeError as e:
            fail("drop %s raised %s" % (name, e))
        else:
            if got is None:
                say("drop %s returned None" % name)
            else:
                fail("drop %s returned %r" % (name, got))
    if opts.delete:
        scr.delete(opts.delete)

    step = restart(opts)
    while step < opts.steps:
        step += 1
        scr.need_checkpoint()
        scr.start_output("ckpt.%d" % step, scr.FLAG_CHECKPOINT)
        valid = True
        try:
            with open(scr.route_file("ckpt.%d/rank%d.txt" % (step, rank)), "w") as f:
                f.write("rank %d step %d\n" % (rank, step))
        except OSError as e:
            fail("writing checkpoint %d: %s" % (step, e))
            valid = False
        if not scr.complete_output(valid):
            fail("complete_output of ckpt.%d said some rank failed" % step)
        if scr.should_exit():
            break
    scr.finalize()
    say("finished step %d" % step)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
