#!/usr/bin/env python3
"""Runs a program with its standard output on a pseudo-terminal and writes, to our standard
output, exactly the bytes it wrote there (the terminal is raw: no newline translation).
Standard error is passed through; the exit status is the program's.

    run_in_pty.py PROGRAM ARG...      (environment as given to this script)
"""
import os
import pty
import subprocess
import sys
import tty

master, slave = pty.openpty()
tty.setraw(slave)
child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=slave)
os.close(slave)
data = bytearray()
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO once the child has closed its side
        break
    if not chunk:
        break
    data += chunk
status = child.wait()
sys.stdout.buffer.write(bytes(data))
sys.stdout.buffer.flush()
sys.exit(status if status >= 0 else 128 - status)
