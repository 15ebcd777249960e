#!/usr/bin/env python3
# A hostile or broken agent, for the host's tests (harness/rig/remote_device.h):
# it speaks the agent protocol (harness/rig/protocol.h) on stdin/stdout as the
# real agent does, beats every 100 ms from the start, and misbehaves as its
# mode says. It ignores the end of its stdin (the host must end it) and
# writes its pid to $FAKE_AGENT_PID_FILE when set, so that a test can check
# that nothing of it is left.
#
# Usage: fake_agent.py MODE
#   silent-hello      never answers the hello
#   protocol-99       a hello of protocol 99, version "0.0.0-evil"
#   malformed-hello   a hello whose protocol is a string
#   hang-workload     answers the hello and the clock, never a workload
#   flood             a workload's iterations: 100 more than planned
#   negative-gap      a workload's iteration 10^18 ns before the previous one
#   future            a workload's iteration an hour after the request
#   lie-count         the planned iterations, then a reply counting 2*10^7
import json
import os
import sys
import threading
import time

mode = sys.argv[1]
lock = threading.Lock()


def send(message):
    line = json.dumps(message, separators=(",", ":")) + "\n"
    with lock:
        try:
            sys.stdout.write(line)
            sys.stdout.flush()
        except (BrokenPipeError, OSError):
            pass


def beat():
    while True:
        send({"event": "heartbeat", "t_ns": time.monotonic_ns()})
        time.sleep(0.1)


def hello(request):
    result = {"protocol": 1, "harness_version": "fake", "capabilities": ["workload"], "context": {"host": "fake"},
              "missing": []}
    if mode == "protocol-99":
        result["protocol"], result["harness_version"] = 99, "0.0.0-evil"
    if mode == "malformed-hello":
        result["protocol"] = "one"
    send({"id": request["id"], "ok": True, "result": result})


def workload(request):
    if mode == "hang-workload":
        return
    planned = request["plan"]["iterations"]
    count = planned + 100 if mode == "flood" else planned
    now = time.monotonic_ns()
    gaps, durs = [0] * count, [1000] * count
    if mode == "negative-gap":
        gaps[1] = -10**18
    if mode == "future":
        gaps[1] = 3600 * 10**9
    send({"id": request["id"], "event": "iterations", "first_ns": now, "gap_ns": gaps, "dur_ns": durs})
    reported = 2 * 10**7 if mode == "lie-count" else count
    end = now + 1000 * count
    send({"id": request["id"], "ok": True,
          "result": {"measuring_ns": now, "end_ns": end, "iterations": reported}})


def main():
    if os.environ.get("FAKE_AGENT_PID_FILE"):
        with open(os.environ["FAKE_AGENT_PID_FILE"], "w") as f:
            f.write(str(os.getpid()))
    threading.Thread(target=beat, daemon=True).start()
    for line in sys.stdin:
        request = json.loads(line)
        op = request.get("op")
        if op == "hello" and mode != "silent-hello":
            hello(request)
        elif op == "time":
            send({"id": request["id"], "ok": True, "result": {"t_ns": time.monotonic_ns()}})
        elif op == "workload":
            workload(request)
        elif op == "bye":
            send({"id": request["id"], "ok": True, "result": {}})
            return
        elif op == "hello":  # silent-hello: never answered
            pass
        else:  # as a real agent answers an op it does not know
            send({"id": request["id"], "ok": False, "exit": 2, "error": "agent protocol: unknown op '%s'" % op})
    while True:  # stdin ended: a broken agent stays
        time.sleep(1)


main()
