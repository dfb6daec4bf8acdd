#!/usr/bin/env python3
"""A loopback server of broken HTTP replies for the xds tests (Python 3.11 standard library only).

    raw_reply_server.py

Listens on 127.0.0.1 with two listeners (ports chosen by the system) and prints ONE JSON line
when ready:
  {"raw": PORT, "silent": PORT, "plain": PORT}
`raw` reads a request's head and answers, by the request path, with raw bytes no HTTP library
would send:
  /garbage          binary bytes, no status line, then close
  /http09           an HTTP/0.9 reply: a JSON body with no status line, then close
  /two-lengths      HTTP/1.1 200 with "Content-Length: 5" then "Content-Length: 13" (the
                    13-byte JSON body); ?redirect=1 makes it a 302 with a Location
  /huge-header      HTTP/1.1 200 with one 200 000-byte header line
  /many-headers     HTTP/1.1 200 with 400 header lines of 1 000 bytes (over 300 KB in all)
  anything else     HTTP/1.1 404
`silent` accepts connections and never writes a byte (a stalled server, proxy or TLS
handshake); it holds them until the client goes away. `plain` answers every connection at once
with a plain-text "HTTP/1.1 400 Bad Request" and closes it (what a TLS client meets at a port
that does not speak TLS).
Every request line of `raw` is appended to the file --log names, if given (one line each).
Exits when its standard input reaches end of file, or on SIGTERM.
"""

import argparse
import json
import os
import signal
import socket
import sys
import threading

BODY = b'{"icons": []}'
ARGS = None


def reply(path):
    if path.startswith("/garbage"):
        return bytes(range(256)) * 4
    if path.startswith("/http09"):
        return BODY + b"\n"
    if path.startswith("/two-lengths"):
        status = b"302 Found\r\nLocation: /elsewhere" if "redirect=1" in path else b"200 OK"
        return (b"HTTP/1.1 " + status + b"\r\nContent-Length: 5\r\nContent-Length: 13\r\n"
                b"Cache-Control: max-age=600\r\nConnection: close\r\n\r\n" + BODY)
    if path.startswith("/huge-header"):
        return (b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 200000 + b"\r\nContent-Length: 13\r\n"
                b"Connection: close\r\n\r\n" + BODY)
    if path.startswith("/many-headers"):
        lines = b"".join(b"X-Header-%d: %s\r\n" % (index, b"a" * 1000) for index in range(400))
        return b"HTTP/1.1 200 OK\r\n" + lines + b"Content-Length: 13\r\nConnection: close\r\n\r\n" + BODY
    return b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


def answer(connection):
    with connection:
        head = b""
        try:
            while b"\r\n\r\n" not in head and len(head) < 65536:
                data = connection.recv(4096)
                if not data:
                    return
                head += data
            first = head.split(b"\r\n", 1)[0].decode("latin-1")
            if ARGS.log:
                with open(ARGS.log, "a", encoding="utf-8") as handle:
                    handle.write(first + "\n")
            parts = first.split(" ")
            connection.sendall(reply(parts[1] if len(parts) > 1 else "/"))
            connection.shutdown(socket.SHUT_WR)
            # Let the client read everything before the close (no reset on unread data).
            connection.settimeout(5)
            while connection.recv(4096):
                pass
        except OSError:
            pass


def hold(connection):
    with connection:
        try:
            while connection.recv(4096):
                pass
        except OSError:
            pass


def greet(connection):
    with connection:
        try:
            connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            connection.shutdown(socket.SHUT_WR)
            connection.settimeout(5)
            while connection.recv(4096):
                pass
        except OSError:
            pass


def serve(listener, handler):
    while True:
        try:
            connection, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=handler, args=(connection,), daemon=True).start()


def listen():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    return listener


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--log", help="file to append each request line to")
    ARGS = parser.parse_args()
    raw, silent, plain = listen(), listen(), listen()
    threading.Thread(target=serve, args=(raw, answer), daemon=True).start()
    threading.Thread(target=serve, args=(silent, hold), daemon=True).start()
    threading.Thread(target=serve, args=(plain, greet), daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    print(json.dumps({"raw": raw.getsockname()[1], "silent": silent.getsockname()[1],
                      "plain": plain.getsockname()[1]}), flush=True)
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except (OSError, ValueError):
        pass
    os._exit(0)


if __name__ == "__main__":
    main()
