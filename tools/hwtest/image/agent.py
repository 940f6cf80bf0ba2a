#!/usr/bin/python3
"""make hwtest's agent inside the VM: runs the host's commands, one JSON line each way.

It reads requests from a virtio-serial port (/dev/virtio-ports/hwtest.agent), runs each
command with its time limit and answers with its status and output. The image starts it at
boot (hwtest-agent.service); it is part of the test machine, not of the box.
Request: {"id": N, "argv": [...], "timeout": S, "input": "..."}.
Answer:  {"id": N, "rc": R, "out": "...", "err": "...", "t": guest CLOCK_MONOTONIC ns}.
"""

import json
import os
import subprocess
import time

PORT = "/dev/virtio-ports/hwtest.agent"


def answer(request: dict) -> dict:
    try:
        proc = subprocess.run(
            request["argv"],
            input=request.get("input", ""),
            capture_output=True,
            text=True,
            timeout=float(request.get("timeout", 60)),
            env={**os.environ, **request.get("env", {})},
        )
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        rc, out, err = 124, str(exc.stdout or ""), f"timed out after {exc.timeout} s"
    except OSError as exc:
        rc, out, err = 127, "", str(exc)
    return {"id": request.get("id"), "rc": rc, "out": out, "err": err, "t": time.monotonic_ns()}


def main() -> None:
    while not os.path.exists(PORT):
        time.sleep(0.2)
    with open(PORT, "r+b", buffering=0) as port:
        buffered = b""
        while True:
            chunk = port.read(65536)
            if not chunk:
                time.sleep(0.05)  # no host connected yet
                continue
            buffered += chunk
            while b"\n" in buffered:
                line, buffered = buffered.split(b"\n", 1)
                try:
                    request = json.loads(line)
                except ValueError:
                    continue
                port.write(json.dumps(answer(request)).encode() + b"\n")


if __name__ == "__main__":
    main()
