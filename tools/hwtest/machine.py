"""The VM and its agent, and the simulator on the host that draws what the box should."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ssd1306
import sysbase  # tools/systest/sysbase.py: Log, Skip, NAME, the parsers
from disk import Image, machine_args
from hwbase import AGENT_PORT, BOOT_GUARD, COMMAND_GUARD, SHARE_TAG, VIRTFS, Failed


class Agent:
    """The host's end of the agent's virtio-serial port: one JSON line each way."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock: socket.socket | None = None
        self.buffered = b""
        self.next_id = 0

    def connect(self, guard: float) -> None:
        end = time.monotonic() + guard
        while True:
            try:
                sock = socket.socket(socket.AF_UNIX)
                sock.connect(str(self.path))
                self.sock = sock
                return
            except OSError:
                sock.close()
                if time.monotonic() > end:
                    raise Failed(f"no agent socket {self.path} within {guard:.0f} s") from None
                time.sleep(0.2)

    def call(self, argv: list[str], timeout: float = COMMAND_GUARD, **kw: Any) -> dict[str, Any]:
        assert self.sock is not None
        self.next_id += 1
        ident = self.next_id
        request = {"id": ident, "argv": argv, "timeout": timeout, **kw}
        try:
            self.sock.sendall(json.dumps(request).encode() + b"\n")
        except OSError as err:
            raise Failed(f"the agent's port: {err}") from None
        end = time.monotonic() + timeout + 15
        while True:
            while b"\n" in self.buffered:
                line, self.buffered = self.buffered.split(b"\n", 1)
                try:
                    answer = json.loads(line)
                except ValueError:
                    continue
                if answer.get("id") == ident:
                    return answer
            left = end - time.monotonic()
            if left <= 0:
                raise Failed(f"the agent did not answer {argv[:3]} within {timeout + 15:.0f} s")
            self.sock.settimeout(min(left, 2.0))
            try:
                chunk = self.sock.recv(1 << 20)
            except TimeoutError:
                continue
            except OSError as err:
                raise Failed(f"the agent's port: {err}") from None
            if not chunk:
                raise Failed("the agent's port closed")
            self.buffered += chunk

    def ready(self, guard: float) -> float:
        """Ping until the agent answers (it starts with the guest's systemd)."""
        started = time.monotonic()
        while True:
            try:
                if self.call(["true"], timeout=3)["rc"] == 0:
                    return time.monotonic() - started
            except Failed as err:
                if "port" in str(err) or time.monotonic() - started > guard:
                    raise Failed(f"the VM's agent did not answer within {guard:.0f} s") from None

    def sh(self, script: str, timeout: float = COMMAND_GUARD, check: bool = True) -> str:
        answer = self.call(["sh", "-c", script], timeout=timeout)
        if check and answer["rc"] != 0:
            tail = (answer["err"] or answer["out"]).strip().splitlines()[-3:]
            raise Failed(f"`{script[:60]}` exit {answer['rc']}: {' | '.join(tail)}")
        return str(answer["out"])

    def guest(self, *args: str, timeout: float = COMMAND_GUARD) -> dict[str, Any]:
        answer = self.call(
            ["python3", f"/mnt/{SHARE_TAG}/tools/hwtest/guest.py", *args], timeout=timeout
        )
        if answer["rc"] != 0:
            raise Failed(f"guest.py {' '.join(args)}: {answer['err'].strip()[-300:]}")
        return json.loads(answer["out"])

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None


@dataclass
class Vm:
    image: Image
    machine: dict[str, Any]
    run_dir: Path
    share: Path
    uarts: list[str]
    log: sysbase.Log
    proc: subprocess.Popen[bytes] | None = None
    agent: Agent | None = None
    boots: int = 0

    def start(self) -> float:
        self.boots += 1
        sock = self.run_dir / f"agent-{self.boots}.sock"
        console = self.run_dir / f"console-{self.boots}.log"
        disk = self.run_dir / "disk.qcow2"
        cmd = [
            *machine_args(self.machine),
            "-kernel", str(self.image.kernel), "-initrd", str(self.image.initrd),
            "-dtb", str(self.image.dtb),
            "-append", "console=ttyAMA0 root=/dev/vda rw panic=-1 systemd.show_status=0",
            "-drive", f"file={disk},if=none,id=hd,format=qcow2,cache=writeback",
            "-device", "virtio-blk-pci,drive=hd",
            "-virtfs", f"local,path={self.share},mount_tag={SHARE_TAG},{VIRTFS}",
            "-device", "virtio-serial-pci",
            "-chardev", f"socket,id=agent,path={sock},server=on,wait=off",
            "-device", f"virtserialport,chardev=agent,name={AGENT_PORT}",
            "-nic", "none", "-display", "none", "-monitor", "none",
            "-serial", f"file:{console}", "-no-reboot",
        ]  # fmt: skip
        for n, pty in enumerate(self.uarts):
            cmd += [
                "-chardev",
                f"serial,id=uart{n},path={pty}",
                "-device",
                f"pci-serial,chardev=uart{n}",
            ]
        self.log.write("$ " + " ".join(cmd))
        started = time.monotonic()
        with (self.run_dir / f"qemu-{self.boots}.err").open("wb") as err:
            self.proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err
            )
        self.agent = Agent(sock)
        self.agent.connect(30)
        try:
            self.agent.ready(BOOT_GUARD)
        except Failed as err:
            tail = console.read_text(errors="replace").strip().splitlines()[-3:]
            raise Failed(f"{err}; console: {' | '.join(tail)}") from None
        self.agent.sh(
            f"mkdir -p /mnt/{SHARE_TAG} && (mountpoint -q /mnt/{SHARE_TAG} || mount -t 9p -o "
            f"trans=virtio,version=9p2000.L,ro {SHARE_TAG} /mnt/{SHARE_TAG})"
        )
        return time.monotonic() - started

    def kill(self) -> None:
        """The power cut: QEMU killed, the guest's caches gone with it."""
        if self.agent is not None:
            self.agent.close()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None and self.agent is not None:
            with contextlib.suppress(Failed, OSError):
                self.agent.call(["systemctl", "poweroff"], timeout=10)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(60)
        self.kill()


class Simulator:
    """The same presses on the simulator (the daemon's own code on mock parts): what it draws."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.frames: list[Any] = []
        self.box = self._start("rdm6300")

    def _start(self, reader: str) -> Any:
        from dataclasses import replace

        from companion.core import config as config_mod
        from companion.sim.box import SimulatedBox

        cfg = config_mod.Config()
        cfg = replace(cfg, reader=replace(cfg.reader, type=reader))
        box = SimulatedBox(
            cfg, state_dir=self.state_dir, demo_cards=False,
            on_frame=lambda image: self.frames.append(image.copy()),
        )  # fmt: skip
        box.app.start()
        box.loop.drain()
        return box

    def restart(self, reader: str) -> None:
        """Stopped and started again from its journal with READER, as the box is by systemd."""
        self.box.close()
        self.frames.clear()
        self.box = self._start(reader)

    def frame(self) -> list[list[int]]:
        image = self.box.app.display.image if hasattr(self.box.app, "display") else None
        if image is None and self.frames:
            image = self.frames[-1]
        return ssd1306.image_pixels(image)

    def press(self, button: str, seconds: float) -> None:
        self.box.hold(button, seconds)
        self.box.advance(0.5)

    def replay(self, button: str, intervals_ms: list[float]) -> None:
        """The line pulled down, then toggled after each interval (the last lets it go): a
        stimulus exactly as the VM's line got it, on the virtual clock."""
        pin = self.box.pin(button)
        low = True
        pin.drive_low()
        for ms in intervals_ms:
            self.box.advance(ms / 1000)
            low = not low
            if low:
                pin.drive_low()
            else:
                pin.drive_high()
        self.box.loop.drain()
        self.box.advance(0.5)

    def tap(self, uid: str) -> None:
        self.box.tap(uid)

    def screen(self) -> list[str]:
        return list(self.box.app.display.lines) if hasattr(self.box.app, "display") else []

    def close(self) -> None:
        self.box.close()
