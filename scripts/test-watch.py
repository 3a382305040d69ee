#!/usr/bin/env python3
"""Runs a Swift Testing process (started with --verbose) and passes its output on line by line,
keeping track of the tests and test cases that started and have not ended yet.

- A test still running after REPORT seconds (default 300) is named once:
  `test-watch: still running after 300 s: <test>`.
- When no test has ended for HANG seconds (default 1800), every test still running is named,
  the process is stopped (SIGTERM, then SIGKILL) and the run fails: a hang names its tests
  instead of leaving a silent log.

Usage: test-watch.py [--report SECONDS] [--hang SECONDS] -- COMMAND [ARGUMENTS...]
Exits with the command's status (or 124 after a hang).
"""
import os
import re
import signal
import subprocess
import sys
import threading
import time

ANSI = re.compile(r"\x1b\[[0-9;]*m")
STARTED = re.compile(r"^\S+ Test (.*) started\.$")
ENDED = re.compile(r"^\S+ Test (.*?)(?: with \d+ test cases?)? (?:passed|failed) after [0-9.]+ seconds")
SKIPPED = re.compile(r"^\S+ Test (.*) skipped")
FRAGMENT = re.compile("[\r\u2714\u2718\u25c7]")


def main():
    arguments = sys.argv[1:]
    report, hang = 300.0, 1800.0
    while arguments and arguments[0] != "--":
        option = arguments.pop(0)
        if option == "--report":
            report = float(arguments.pop(0))
        elif option == "--hang":
            hang = float(arguments.pop(0))
        else:
            sys.exit(f"test-watch: unknown option {option}")
    command = arguments[1:]
    if not command:
        sys.exit("usage: test-watch.py [--report SECONDS] [--hang SECONDS] -- COMMAND [ARGUMENTS...]")

    lock = threading.Lock()
    running = {}  # name -> [start times] (one name can run more than once)
    reported = set()
    last_end = [time.monotonic()]
    hung = [False]

    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)

    def say(text):
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def watch():
        while process.poll() is None:
            time.sleep(5)
            now = time.monotonic()
            with lock:
                for name, starts in running.items():
                    for start in starts:
                        if now - start >= report and (name, start) not in reported:
                            reported.add((name, start))
                            say(f"test-watch: still running after {int(now - start)} s: {name}")
                if running and now - last_end[0] >= hang:
                    hung[0] = True
                    say(f"test-watch: no test ended for {int(hang)} s; stopping the run. Still running:")
                    for name, starts in sorted(running.items()):
                        for start in starts:
                            say(f"test-watch:   {name} (for {int(now - start)} s)")
                    break
        if hung[0]:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                time.sleep(10)
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    threading.Thread(target=watch, daemon=True).start()

    for raw in iter(process.stdout.readline, b""):
        line = raw.decode("utf-8", "replace").rstrip("\n")
        say(line)
        plain = ANSI.sub("", line)
        with lock:
            # A test case whose argument holds line breaks is printed over several lines: such
            # a fragment is no name.
            if (match := STARTED.match(plain)) and match.group(1) != "run" and not FRAGMENT.search(match.group(1)):
                running.setdefault(match.group(1), []).append(time.monotonic())
            elif (match := ENDED.match(plain)) or (match := SKIPPED.match(plain)):
                starts = running.get(match.group(1))
                if starts:
                    starts.pop(0)
                    if not starts:
                        del running[match.group(1)]
                last_end[0] = time.monotonic()
    status = process.wait()
    with lock:
        # A crash (a signal) or an unexpected status: name what was cut off.
        if running and not hung[0] and status not in (0, 1):
            say("test-watch: the process ended with these tests unfinished:")
            for name in sorted(running):
                say(f"test-watch:   {name}")
    if hung[0]:
        sys.exit(124)
    sys.exit(status if status >= 0 else 128 - status)


if __name__ == "__main__":
    main()
