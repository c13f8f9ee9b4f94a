"""Helpers shared by the benchmark scripts (loopback only)."""
import re
import socket
import time


def free_port():
    """A port on 127.0.0.1 that was free a moment ago."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, timeout=15.0):
    """True once something accepts connections on 127.0.0.1:port, False after `timeout` seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            time.sleep(0.002)
    return False


def parse_latency(text, label):
    """The `label`% latency of wrk's --latency output, in milliseconds (None when absent)."""
    m = re.search(rf"^\s+{label}%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
    if not m:
        return None
    v, unit = float(m.group(1)), m.group(2)
    return v / 1000 if unit == "us" else v if unit == "ms" else v * 1000
